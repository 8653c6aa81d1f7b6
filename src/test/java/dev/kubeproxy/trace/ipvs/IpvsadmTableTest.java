package dev.kubeproxy.trace.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** IPVS's table as "ipvsadm -Sn" prints it, read by the tracer's own parser. */
@Unit
class IpvsadmTableTest {
  static final String SAVE = """
      -A -t 10.96.0.10:80 -s rr -p 10800
      -a -t 10.96.0.10:80 -r 10.244.1.5:8080 -m -w 1
      -a -t 10.96.0.10:80 -r 10.244.2.5:8080 -m -w 0
      -A -u [fd00:96::a]:53 -s rr
      -a -u [fd00:96::a]:53 -r [fd00:244::5]:5353 -m -w 1
      -A --sctp-service 10.96.0.12:9000 -s rr
      -A -f 7 -s rr
      -a -f 7 -r 10.0.0.1:0 -g -w 1
      """;

  @Test
  void virtualServersAndTheRealServersANewConnectionCanGetTo() {
    IpvsadmTable t = IpvsadmTable.parse(SAVE);
    // weight 0 is draining: no new connection goes there
    assertEquals(List.of("10.244.1.5:8080"), t.destinations("10.96.0.10", "TCP", 80));
    assertEquals(List.of("[fd00:244::5]:5353"), t.destinations("fd00:96:0::a", "udp", 53));
    assertEquals(List.of(), t.destinations("10.96.0.12", "sctp", 9000));
    assertNull(t.destinations("10.96.0.10", "udp", 80));
    assertNull(t.destinations("10.96.0.10", "tcp", 81));
    assertEquals(3, t.virtualServers().size());
  }

  @Test
  void textThatIsNotIpvsadmSaveNamesTheLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IpvsadmTable.parse("-A -t 10.96.0.10:80 -s rr\nTCP  10.96.0.10:80 rr\n"));
    assertTrue(e.getMessage().startsWith("ipvsadm line 2 (TCP  10.96.0.10:80 rr)"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> IpvsadmTable.parse("-a -t 10.96.0.10:80 -r 1.2.3.4:80 -m\n"));
    assertTrue(e.getMessage().contains("not declared before it"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> IpvsadmTable.parse("-A -t kubernetes:http -s rr\n"));
    assertTrue(e.getMessage().contains("ipvsadm -S needs -n"), e.getMessage());
  }
}
