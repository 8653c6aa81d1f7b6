package dev.kubeproxy.trace;

/** Walks a packet through programmed rules in one rule form and says what they do with it. */
public interface PacketTracer {

    /** The path, verdict, DNAT targets and masquerade of {@code packet} through the rules. */
    Trace trace(Packet packet);
}
