package dev.kubeproxy.guest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.tier.InGuest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The guest runner itself: one boot carries real traffic through an IPVS virtual server (NAT to a
 * real server in a namespace), and passes the command's stdout, stderr and exit status through.
 */
@InGuest
class GuestRunnerIT {
  @Test
  void ipvsCarriesTrafficAndTheCommandsOutputAndStatusComeBack() throws Exception {
    Guest.assumeAvailable();
    long start = System.nanoTime();
    CommandRunner.Result r = Guest.run(List.of("src/test/guest/ipvs-datapath-check"));
    System.out.println("guest run: " + (System.nanoTime() - start) / 1_000_000 + " ms");
    assertEquals(3, r.exitCode(), r.toString());
    assertTrue(r.stdout().contains("answer: backend-1\n"), r.toString());
    assertTrue(r.stdout().contains("connection 10.96.0.10:80 -> 10.0.0.2:8080\n"), r.toString());
    assertTrue(r.stderr().contains("a line on stderr\n"), r.toString());
  }
}
