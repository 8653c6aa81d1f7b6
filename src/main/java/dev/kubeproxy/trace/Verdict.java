package dev.kubeproxy.trace;

/** What the rules finally do with a traced packet. */
public enum Verdict {
    ACCEPT,
    DROP,
    REJECT
}
