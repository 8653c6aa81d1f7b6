package dev.kubeproxy.trace;

/**
 * A packet to trace.
 *
 * @param origin where it arrives from
 * @param sourceIp the source address as text (IPv4 or IPv6)
 * @param destinationIp the destination address as text (IPv4 or IPv6)
 * @param destinationPort the destination port
 * @param protocol the transport protocol
 * @param established whether conntrack already knows the connection (ctstate ESTABLISHED/RELATED rather than NEW)
 */
public record Packet(Origin origin, String sourceIp, String destinationIp, int destinationPort, Protocol protocol,
        boolean established) {
}
