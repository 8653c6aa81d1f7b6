package dev.kubeproxy.messages;

import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.net.IpFamily;

import java.util.Map;

/**
 * One family's part of a {@link ProxierSnapshot}.
 *
 * @param settings   what the family's backend was built with (node IPs, local-traffic detection, masquerading)
 * @param state      the state the last sync was given, or null before the first sync
 * @param syncs      the family's syncs per service
 * @param programmed what the kernel holds for the queried Service's ports (empty without a query)
 * @param ruleset    the family's whole ruleset for tracing a packet, or null when no trace was asked
 */
public record FamilySnapshot(
    ProxierSettings settings, ProxyState state, ServiceSyncLog syncs, Map<ServicePortName, ProgrammedRules> programmed,
    ProgrammedRuleset ruleset) {

  public FamilySnapshot(ProxierSettings settings, ProxyState state, ServiceSyncLog syncs,
      Map<ServicePortName, ProgrammedRules> programmed) {
    this(settings, state, syncs, programmed, null);
  }

  public IpFamily family() {
    return settings.family();
  }
}
