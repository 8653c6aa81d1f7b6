package dev.kubeproxy.proxy;

/**
 * A request for the proxier's snapshot ({@link dev.kubeproxy.EventBusAddresses#DEBUG_SERVICES}).
 *
 * @param service the one Service whose programmed rules to read from the kernel, or null for every
 *                Service without their rules (reading the kernel for all of them would be slow)
 */
public record DebugServicesQuery(NamespacedName service) {}
