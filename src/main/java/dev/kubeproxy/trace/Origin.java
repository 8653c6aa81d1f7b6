package dev.kubeproxy.trace;

/** Where a traced packet arrives from: a local pod, the node itself (the output path), or outside (a NIC). */
public enum Origin {
    POD,
    NODE,
    OUTSIDE
}
