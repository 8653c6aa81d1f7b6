package dev.kubeproxy.messages;

import dev.kubeproxy.model.NamespacedName;

/**
 * A request for the proxier's snapshot ({@link dev.kubeproxy.messages.EventBusAddresses#DEBUG_SERVICES}).
 *
 * @param service the one Service whose programmed rules to read from the kernel, or null for every
 *                Service without their rules (reading the kernel for all of them would be slow)
 * @param ruleset whether to read each family's whole ruleset too, to trace a packet through it
 */
public record DebugServicesQuery(NamespacedName service, boolean ruleset) {
  public DebugServicesQuery(NamespacedName service) {
    this(service, false);
  }
}
