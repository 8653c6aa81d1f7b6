package dev.kubeproxy.backend.conntrack;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.host.HostPaths;
import dev.kubeproxy.runtime.PlatformSetup;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs the platform setup in whatever network namespace it is started in (the test starts it
 * with "ip netns exec"): the real /proc/sys (per-netns conntrack sysctls), but the host-global
 * hashsize parameter, mount table, CPU list and OOM file come from the test's directory.
 *
 * <p>Arguments: testDir maxPerCore min established closeWait beLiberal udp udpStream (seconds) oomScoreAdj.
 */
public final class ConntrackSysctlsNetnsMain {
  private ConntrackSysctlsNetnsMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    KubeProxyConfiguration c = new KubeProxyConfiguration();
    c.conntrack.maxPerCore = Integer.parseInt(args[1]);
    c.conntrack.min = Integer.parseInt(args[2]);
    c.conntrack.tcpEstablishedTimeout = Duration.ofSeconds(Long.parseLong(args[3]));
    c.conntrack.tcpCloseWaitTimeout = Duration.ofSeconds(Long.parseLong(args[4]));
    c.conntrack.tcpBeLiberal = Boolean.parseBoolean(args[5]);
    c.conntrack.udpTimeout = Duration.ofSeconds(Long.parseLong(args[6]));
    c.conntrack.udpStreamTimeout = Duration.ofSeconds(Long.parseLong(args[7]));
    c.oomScoreAdj = Integer.parseInt(args[8]); // this short-lived process's own score: harmless
    HostPaths paths = HostPaths.under(dir).withProcSys(Path.of("/proc/sys")).withOomScoreAdj(Path.of("/proc/self/oom_score_adj"));
    AgentOptions options = new AgentOptions(c, null, "node", null, false, false, false);
    PlatformSetup.Result r = PlatformSetup.run(options, paths);
    PlatformSetup.adjustOomScore(options, paths);
    System.out.println("sysfsReadOnly=" + r.sysfsReadOnly());
    System.out.println("oom_score_adj=" + dev.kubeproxy.host.Sysctl.readSmallFile(Path.of("/proc/self/oom_score_adj")).trim());
  }
}
