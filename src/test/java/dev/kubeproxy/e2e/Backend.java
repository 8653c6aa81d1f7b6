package dev.kubeproxy.e2e;

/** A pod that can be a Service endpoint: its echo name, its node and its address per family. */
public enum Backend {
  POD_A("pod-a", Manifests.NODE_NAME, 0),
  POD_B("pod-b", Manifests.NODE_NAME, 1),
  POD_C("pod-c", Manifests.NODE_NAME, 2),
  RPOD("rpod", Manifests.REMOTE_NODE_NAME, -1);

  private final String host;
  private final String nodeName;
  private final int localIndex;

  Backend(String host, String nodeName, int localIndex) {
    this.host = host;
    this.nodeName = nodeName;
    this.localIndex = localIndex;
  }

  /** The role of its namespace and the name its echo server answers with. */
  public String host() {
    return host;
  }

  public String nodeName() {
    return nodeName;
  }

  public boolean local() {
    return localIndex >= 0;
  }

  public String ip(Family f) {
    return local() ? f.localPodIp(localIndex) : f.remotePodIp();
  }
}
