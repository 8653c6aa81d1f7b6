package dev.kubeproxy.backend.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.guest.Guest;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.tier.InGuest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ipvs tracer agrees with Debian's kernel (the QEMU guest), one boot: the ipvs backend programs a cluster of
 * every Service kind and policy, random flows go through it, and the tracer over the state read back from the
 * kernel (ipvsadm -Sn form, ipset save, iptables-save, kube-ipvs0) must give each flow's DNAT target, masquerade,
 * drop or reject as conntrack recorded it; explain's check over the same read-back agrees with the model
 * (-Dtracer.seed=N repeats a run).
 */
@InGuest
class IpvsTracerAgreementGuestIT {
  @Test
  void theIpvsTracerAgreesWithTheKernelOnRandomFlows() throws Exception {
    Guest.assumeAvailable();
    long seed = Long.getLong("tracer.seed", System.nanoTime());
    CommandRunner.Result r = GuestRun.java(IpvsTracerAgreementGuestMain.class, Long.toString(seed));
    System.out.println(r.stdout()); // the guest's report, kept in the failsafe output file
    assertEquals(0, r.exitCode(), r.toString());
    Map<String, String> s = GuestRun.sections(r.stdout());
    assertTrue(s.containsKey("disagreements"), r.toString());
    assertEquals("", s.get("disagreements").strip(), () -> "seed " + seed + ":\n" + s.get("disagreements"));
    String explain = s.get("explain");
    assertFalse(explain.isBlank(), r.toString());
    assertTrue(explain.lines().allMatch(l -> l.contains(" agrees (")), explain);
  }
}
