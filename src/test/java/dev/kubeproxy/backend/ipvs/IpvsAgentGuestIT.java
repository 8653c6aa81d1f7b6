package dev.kubeproxy.backend.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.guest.Guest;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.tier.InGuest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The packaged agent in ipvs mode under Debian's kernel (the QEMU guest), one boot: started as
 * bin/kube-proxy starts it with --manifests in a network namespace, it passes its IPVS and ipset
 * start-up checks, carries ClusterIP traffic, answers on the health-check node ports of
 * externalTrafficPolicy Local LoadBalancers (200 with the local endpoint count, 503 without),
 * serves the sync metrics and /debug/services in ipvs terms, deletes the stale UDP conntrack
 * entries of a removed endpoint, and `kube-proxy --cleanup` as its own process removes everything
 * ipvs mode made.
 */
@InGuest
class IpvsAgentGuestIT {
  private static final Path JAR = Path.of("target", "kube-proxy.jar").toAbsolutePath();

  @Test
  void packagedAgentRunsIpvsModeEndToEnd() throws Exception {
    Guest.assumeAvailable();
    assumeTrue(Files.isRegularFile(JAR), "target/kube-proxy.jar is missing: run `mvn -B verify` (it packages first)");
    CommandRunner.Result r = GuestRun.java(IpvsAgentGuestMain.class, JAR.toString());
    System.out.println(r.stdout()); // the guest's report with the agent's log, kept in the failsafe output file
    assertEquals(0, r.exitCode(), r.toString());
    check(GuestRun.sections(r.stdout()));
  }

  static void check(Map<String, String> s) {
    assertEquals("true", s.get("healthy").strip(), s.get("agent log"));
    assertEquals("true", s.get("synced").strip(), s.get("agent log"));
    String startup = s.get("agent start-up");
    assertTrue(startup.contains("\"Using ipvs Proxier\""), startup);
    assertFalse(startup.contains("can't use the IPVS proxier"), startup);

    assertTrue(s.get("clusterIP tries").contains("pod1 "), s.get("clusterIP tries"));

    // upstream's service health JSON: the local endpoint count, 503 when it is 0
    String withLocal = s.get("health check with local endpoint");
    assertTrue(withLocal.contains("\"name\": \"shop\"") && withLocal.contains("\"localEndpoints\": 1,")
        && withLocal.strip().endsWith("200"), withLocal);
    String noLocal = s.get("health check without local endpoint");
    assertTrue(noLocal.contains("\"name\": \"lonely\"") && noLocal.contains("\"localEndpoints\": 0,")
        && noLocal.strip().endsWith("503"), noLocal);

    // the UDP flow's entry towards the removed endpoint (pod1) is gone and its next datagram went to
    // pod2; the agent reconciled conntrack after that sync (upstream CleanStaleEntries; on this kernel
    // IPVS's expire_nodest_conn may have dropped the entry first)
    String withPod1 = s.get("udp conntrack with pod1");
    assertTrue(withPod1.contains("dst=10.96.0.53") && withPod1.contains("src=10.244.1.5"), withPod1);
    assertEquals("true", s.get("udp endpoint moved").strip());
    String after = s.get("udp conntrack after");
    assertTrue(!after.contains("src=10.244.1.5") && after.contains("src=10.244.1.6"), after);
    assertTrue(s.get("agent log").lines().filter(l -> l.contains("\"Finished reconciling conntrack entries\"")
        && l.contains("ipFamily=\"IPv4\"")).count() >= 2, "no conntrack reconcile after the endpoint change");

    String metrics = s.get("metrics");
    Matcher syncs = Pattern.compile("kubeproxy_sync_proxy_rules_duration_seconds_count\\{ip_family=\"IPv4\"} (\\d+)")
        .matcher(metrics);
    assertTrue(syncs.find() && Integer.parseInt(syncs.group(1)) >= 2, metrics); // the first sync and the endpoint move
    assertTrue(metrics.contains("kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv4\"} 1."), metrics);

    // /debug/services in ipvs terms: the kernel's virtual server, and the path through it
    String debug = s.get("debug services");
    assertTrue(debug.contains("ipvs TCP 10.96.0.10:80 rr") && debug.contains("-> 10.244.1.5:8080 Masq weight 1")
        && debug.contains("IPVS TCP 10.96.0.10:80: picks one of 1 real server(s)"), debug);

    assertEquals("true", s.get("agent stopped").strip());
    String state = s.get("state before cleanup");
    assertTrue(state.contains("kube-ipvs0: true") && !state.contains("virtual servers: 0")
        && !state.contains("ipsets: 0") && !state.contains("KUBE chains: 0"), state);
    assertEquals("0", s.get("cleanup exit").strip(), s.get("cleanup log"));
    assertEquals("virtual servers: 0\nkube-ipvs0: false\nipsets: 0\nKUBE chains: 0\n", s.get("after cleanup"));
  }
}
