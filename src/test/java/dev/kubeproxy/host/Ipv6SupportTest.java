package dev.kubeproxy.host;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Unit
class Ipv6SupportTest {
  @TempDir Path proc;

  private void write(String relative, String text) throws IOException {
    Path p = proc.resolve(relative);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  @Test
  void enabledWhenIfInet6ExistsAndTheSysctlIsZero() throws IOException {
    write("net/if_inet6", "00000000000000000000000000000001 01 80 10 80       lo\n");
    write("sys/net/ipv6/conf/all/disable_ipv6", "0\n");
    assertTrue(Ipv6Support.ofProc(proc).enabled());
  }

  @Test
  void notWithoutIfInet6AsAfterIpv6DisableAtBoot() {
    assertFalse(Ipv6Support.ofProc(proc).enabled());
  }

  @Test
  void notWhenSwitchedOffAtRunTime() throws IOException {
    write("net/if_inet6", "");
    write("sys/net/ipv6/conf/all/disable_ipv6", "1\n");
    assertFalse(Ipv6Support.ofProc(proc).enabled());
  }

  @Test
  void anUnreadableFileCountsAsNoIpv6() {
    assertFalse(new Ipv6Support(path -> {
      throw new IOException("permission denied");
    }).enabled());
  }
}
