package dev.kubeproxy.trace;

/** A traced packet's transport protocol. */
public enum Protocol {
    TCP,
    UDP,
    SCTP
}
