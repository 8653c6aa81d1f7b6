package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every line of a restore input is owned by the service port that wrote it, or by none. */
@Unit
class LineOwnersTest {
  @Test
  void eachLineNamesItsServicePort() {
    ServicePortName web = spn("demo", "web", "http", "TCP");
    ServicePortName dns = spn("kube-system", "dns", "dns", "UDP");
    ServicePortName empty = spn("demo", "empty", "", "TCP");
    ProxyState state = state()
        .add(svc(web, "10.96.12.34", 80).nodePort(30080).loadBalancer("203.0.113.10").sourceRanges("198.51.100.0/24"),
            ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false))
        .add(svc(dns, "10.96.0.10", 53), ready("10.244.2.9", 53, false))
        .add(svc(empty, "10.96.0.11", 80))
        .build();
    RulesetGenerator generator = new RulesetGenerator();
    Ruleset ruleset = generator.generate(Fixtures.options(IpFamily.IPv4, clusterCidr("10.244.0.0/16")), state, true,
        List.of("KUBE-SVC-STALESTALESTALE1"));
    String[] lines = ruleset.payload().split("\n");
    int owned = 0;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      ServicePortName owner = ruleset.serviceAtLine(i + 1);
      ServicePortName expected = null;
      for (ServicePortName p : List.of(web, dns, empty)) {
        if (line.contains("--comment \"" + p + " ") || line.contains("--comment " + p + " ")
            || line.contains(" " + p + " external destinations") || line.contains("to " + p + " will be dropped")) {
          expected = p;
        }
      }
      if (expected != null) {
        assertEquals(expected, owner, "line " + (i + 1) + ": " + line);
        owned++;
      } else if (line.startsWith("-X ") || line.startsWith("*") || line.equals("COMMIT")
          || line.contains("KUBE-POSTROUTING") || line.contains("KUBE-FORWARD") || line.contains("nodeports")) {
        assertNull(owner, "line " + (i + 1) + ": " + line);
      }
    }
    assertTrue(owned > 15, "service lines checked: " + owned);
  }
}
