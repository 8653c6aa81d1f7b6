package dev.kubeproxy.backend.netfilter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The lock wait flags by iptables version: a wait in seconds, never the -W poll interval. */
@Unit
class IptablesWaitFlagsTest {
  /** Answers --version with this version and fails anything else. */
  private static CommandRunner answering(String version) {
    return new CommandRunner() {
      @Override
      public Result run(List<String> argv, CharSequence stdin) {
        return argv.contains("--version") ? new Result(0, "iptables v" + version + " (nf_tables)\n", "")
            : new Result(1, "", "unexpected " + argv);
      }

      @Override
      public Result runLines(List<String> argv, Consumer<String> lines) {
        return new Result(1, "", "unexpected " + argv);
      }
    };
  }

  private static IptablesTool tool(String version) {
    return new IptablesTool(answering(version), IpFamily.IPv4, IptablesBackend.NFT);
  }

  @Test
  void noWaitIntervalAtAnyVersion() {
    assertEquals(List.of("-w", "5"), tool("1.8.9").waitFlags());
    assertEquals(List.of("-w", "5"), tool("1.8.9").restoreWaitFlags());
    assertEquals(List.of("-w", "5"), tool("1.6.1").waitFlags());
    assertEquals(List.of("-w"), tool("1.6.1").restoreWaitFlags());
    assertEquals(List.of("-w", "5"), tool("1.4.22").waitFlags());
    assertEquals(List.of("-w"), tool("1.4.21").waitFlags());
    assertEquals(List.of(), tool("1.4.19").waitFlags());
  }
}
