package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.FormArena;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.TableReader;

/** A table reader for tests whose read is their own and whose forms are never compared. */
abstract class FormlessReader implements TableReader {
  @Override
  public String ruleForm(Rule rule) {
    return "";
  }

  @Override
  public void keyForm(Element element, FormArena out) {}

  @Override
  public void elementForm(Element element, FormArena out) {}

  @Override
  public Element decode(String container, boolean map, char[] forms, int start, int end) {
    return null;
  }
}
