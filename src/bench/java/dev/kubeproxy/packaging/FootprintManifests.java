package dev.kubeproxy.packaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import java.util.TreeSet;

/**
 * N ClusterIP Services of one TCP port with E ready endpoints each (on another node), as JSON
 * Lists of 100 Services and their EndpointSlices per file, and this node's Node object. JSON is
 * what the API server sends the informers.
 */
final class FootprintManifests {
  static final String NODE = "node-1";
  private static final int PER_FILE = 100;
  final Path dir;
  final int services;
  final int endpoints;
  /** Per file, the Service its last write moved an endpoint of (-1: none) and that change's number. */
  private final int[] changedOf;
  private final int[] generationOf;

  FootprintManifests(Path dir, int services, int endpoints) {
    this.dir = dir;
    this.services = services;
    this.endpoints = endpoints;
    int files = (services + PER_FILE - 1) / PER_FILE;
    changedOf = new int[files];
    generationOf = new int[files];
  }

  static String clusterIp(int service) {
    return ipv4(0x0A600000 + 10 + service); // 10.96.0.10 + i
  }

  /**
   * The endpoints ("ip:port") the Service has as of the last write of its file: a file is
   * rewritten whole, so a Service moved by an earlier change is back to its first addresses once
   * another Service of its file is changed.
   */
  Set<String> endpointsOf(int service) {
    int file = service / PER_FILE;
    Set<String> out = new TreeSet<>();
    for (int j = 0; j < endpoints; j++) {
      out.add(ipv4(address(service, j, changedOf[file], generationOf[file])) + ":8080");
    }
    return out;
  }

  /** Endpoint j of Service i: 10.64.0.0/10 holds every endpoint, a moved first endpoint takes one of 4 spares. */
  private int address(int i, int j, int changedService, int generation) {
    int base = 0x0A400000 + i * (endpoints + 4);
    return i == changedService && j == 0 ? base + endpoints + generation % 4 : base + j;
  }

  void writeAll() throws IOException {
    Files.writeString(dir.resolve("00-node.json"), "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\""
        + NODE + "\",\"labels\":{\"kubernetes.io/hostname\":\"" + NODE + "\"}},\"spec\":{\"podCIDR\":\"10.244.1.0/24\","
        + "\"podCIDRs\":[\"10.244.1.0/24\"]},\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":"
        + "\"192.168.200.10\"}]}}\n");
    for (int file = 0; file * PER_FILE < services; file++) {
      writeFile(file, -1, 0);
    }
  }

  /**
   * Change number k: the k-th Service (round robin) gets one endpoint moved within a fixed pool
   * of addresses, so the state stays the same size however long the run.
   */
  void churn(int k) throws IOException {
    int service = (int) ((k * 7919L) % services);
    writeFile(service / PER_FILE, service, k);
  }

  private void writeFile(int file, int changedService, int generation) throws IOException {
    StringBuilder sb = new StringBuilder("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    int from = file * PER_FILE;
    int to = Math.min(services, from + PER_FILE);
    for (int i = from; i < to; i++) {
      if (i > from) {
        sb.append(',');
      }
      String ip = clusterIp(i);
      sb.append("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"svc-").append(i)
          .append("\",\"namespace\":\"bench\"},\"spec\":{\"type\":\"ClusterIP\",\"clusterIP\":\"").append(ip)
          .append("\",\"clusterIPs\":[\"").append(ip).append("\"],\"ipFamilies\":[\"IPv4\"],\"ports\":[{\"name\":")
          .append("\"http\",\"port\":80,\"targetPort\":8080,\"protocol\":\"TCP\"}]}},");
      sb.append("{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{\"name\":\"svc-")
          .append(i).append("-abcde\",\"namespace\":\"bench\",\"labels\":{\"kubernetes.io/service-name\":\"svc-")
          .append(i).append("\"}},\"addressType\":\"IPv4\",\"ports\":[{\"name\":\"http\",\"port\":8080,\"protocol\":")
          .append("\"TCP\"}],\"endpoints\":[");
      for (int j = 0; j < endpoints; j++) {
        if (j > 0) {
          sb.append(',');
        }
        sb.append("{\"addresses\":[\"").append(ipv4(address(i, j, changedService, generation))).append("\"],\"conditions\":{\"ready\":true,")
            .append("\"serving\":true,\"terminating\":false},\"nodeName\":\"node-2\"}");
      }
      sb.append("]}");
    }
    sb.append("]}\n");
    // Written beside it and renamed: the agent never reads half a file (dot files are not manifests).
    Path tmp = dir.resolve(".svc-" + file + ".tmp");
    Files.writeString(tmp, sb);
    Files.move(tmp, dir.resolve(String.format("svc-%05d.json", file)), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    changedOf[file] = changedService;
    generationOf[file] = generation;
  }

  private static String ipv4(int v) {
    return ((v >>> 24) & 255) + "." + ((v >>> 16) & 255) + "." + ((v >>> 8) & 255) + "." + (v & 255);
  }
}
