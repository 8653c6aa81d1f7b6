package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.TableReader;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A snapshot of {@link FakeNftables}' table in its forms, which it hands to a {@link TableVisitor}
 * as the kernel's reader would, and which tests read to pick what to change by hand.
 *
 * @param chains     chain name to its rules, each in {@link TableReader#ruleForm} form
 * @param containers set or map name to its elements' {@link TableReader#elementForm} forms, by
 *                   {@link TableReader#keyForm}
 * @param maps       which of the containers are maps
 */
record KernelTable(Map<String, List<String>> chains, Map<String, Map<String, String>> containers, Set<String> maps) {

  /** In the reader's order: chain names, each container with its elements, then the rules. */
  void replay(TableVisitor visitor) {
    chains.keySet().forEach(visitor::chain);
    containers.forEach((name, elements) -> {
      visitor.container(name, maps.contains(name));
      elements.forEach((key, form) -> {
        char[] forms = (key + form).toCharArray();
        visitor.element(forms, 0, key.length(), forms.length);
      });
      visitor.endContainer(name);
    });
    chains.forEach((chain, rules) -> rules.forEach(form -> visitor.rule(chain, form)));
  }
}
