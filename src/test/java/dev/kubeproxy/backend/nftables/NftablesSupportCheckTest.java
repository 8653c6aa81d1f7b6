package dev.kubeproxy.backend.nftables;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The start-up checks, with a scripted command runner standing in for nft. */
@Unit
class NftablesSupportCheckTest {
  /** Answers "nft --version" with a given text and "nft --check" with a given status. */
  static final class ScriptedRunner implements CommandRunner {
    final String version;
    final boolean commentsAccepted;
    final boolean featuresAccepted;
    final List<String> inputs = new ArrayList<>();

    ScriptedRunner(String version, boolean commentsAccepted, boolean featuresAccepted) {
      this.version = version;
      this.commentsAccepted = commentsAccepted;
      this.featuresAccepted = featuresAccepted;
    }

    @Override
    public Result run(List<String> argv, CharSequence input) throws IOException {
      String stdin = input == null ? null : input.toString();
      if (version == null) {
        throw new IOException("Cannot run program \"nft\": error=2, No such file or directory");
      }
      if (argv.contains("--version")) {
        return new Result(0, version + "\n", "");
      }
      inputs.add(stdin);
      boolean ok = stdin.contains("probe-") ? featuresAccepted : (commentsAccepted || !stdin.contains("comment"));
      return new Result(ok ? 0 : 1, "", ok ? "" : "/dev/stdin:1:1-3: Error: Could not process rule: Not supported\n");
    }
  }

  private static boolean check(ScriptedRunner r, String kernel, String skip) throws Exception {
    return NftablesSupportCheck.check(IpFamily.IPv4, r, new NftCommand(IpFamily.IPv4, r), kernel, skip);
  }

  @Test
  void acceptsCurrentNftAndKernel() throws Exception {
    assertTrue(check(new ScriptedRunner("nftables v1.0.6 (Lester Gooch #5)", true, true), "6.1.0-18-amd64", null));
  }

  @Test
  void missingNftIsAClearError() {
    var e = assertThrows(NftablesSupportCheck.UnsupportedException.class,
        () -> check(new ScriptedRunner(null, true, true), "6.1.0", null));
    assertTrue(e.getMessage().contains("needs the nft binary"), e.getMessage());
  }

  @Test
  void oldNftIsRejected() {
    var e = assertThrows(NftablesSupportCheck.UnsupportedException.class,
        () -> check(new ScriptedRunner("nftables v0.9.8 (E.D.S.)", true, true), "6.1.0", null));
    assertTrue(e.getMessage().contains("requires nft 1.0.1 or later"), e.getMessage());
  }

  @Test
  void oldKernelIsRejectedUnlessSkipped() throws Exception {
    var e = assertThrows(NftablesSupportCheck.UnsupportedException.class,
        () -> check(new ScriptedRunner("nftables v1.0.6", true, true), "5.10.0-28-amd64", null));
    assertTrue(e.getMessage().contains("kube-proxy in nftables mode requires kernel 5.13 or later"), e.getMessage());
    assertTrue(check(new ScriptedRunner("nftables v1.0.6", true, true), "5.10.0-28-amd64", "1"));
  }

  /** kubernetes#130401: an empty value does not skip the check; any non-empty one ("0" too) does. */
  @Test
  void onlyANonEmptySkipValueSkipsTheKernelCheck() throws Exception {
    var e = assertThrows(NftablesSupportCheck.UnsupportedException.class,
        () -> check(new ScriptedRunner("nftables v1.0.6", true, true), "5.10.0-28-amd64", ""));
    assertTrue(e.getMessage().contains("requires kernel 5.13 or later"), e.getMessage());
    assertTrue(check(new ScriptedRunner("nftables v1.0.6", true, true), "5.10.0-28-amd64", "0"));
    assertTrue(check(new ScriptedRunner("nftables v1.0.6", true, true), "5.10.0-28-amd64", "true"));
  }

  @Test
  void objectCommentsAreDroppedWhenNftRejectsThem() throws Exception {
    assertFalse(check(new ScriptedRunner("nftables v1.0.1", false, true), "5.15.0", null));
  }

  @Test
  void missingKernelFeaturesAreFatal() {
    var e = assertThrows(NftablesSupportCheck.UnsupportedException.class,
        () -> check(new ScriptedRunner("nftables v1.0.6", true, false), "6.1.0", null));
    assertTrue(e.getMessage().contains("lacks nftables features"), e.getMessage());
    assertTrue(e.getMessage().contains("Not supported"), e.getMessage());
  }
}
