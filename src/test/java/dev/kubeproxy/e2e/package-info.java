/**
 * End-to-end tests of the packaged agent with real traffic in network namespaces.
 *
 * <p>{@link dev.kubeproxy.e2e.Topology} builds a small cluster out of namespaces (a node with
 * three pods on routed veths, a remote node with one pod, two outside clients, a bridge as the
 * node network); {@link dev.kubeproxy.e2e.EchoMain} runs in each namespace as echo backend and
 * probe client; {@link dev.kubeproxy.e2e.KubeProxyAgent} runs {@code target/kube-proxy.jar} in
 * the node namespace against a {@code --manifests} directory written by
 * {@link dev.kubeproxy.e2e.Manifests}. {@link dev.kubeproxy.e2e.ProxyScenarios} holds the
 * checks; its subclasses pick mode, iptables variant and IP families.
 *
 * <p>Run: {@code mvn -B -o verify -Dit.test='*IT' -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false}
 * (root, ip, iptables, nft and conntrack needed; otherwise the classes skip, saying why).
 * Logs of every run (agent output, echo processes, manifests) are kept under
 * {@code target/e2e-logs/e2e-<id>/<Class>/} (the echo processes log next to those folders). One
 * topology serves the whole run ({@link dev.kubeproxy.e2e.SharedTopology}); each class resets the
 * node's netfilter state before starting its agent.
 */
package dev.kubeproxy.e2e;
