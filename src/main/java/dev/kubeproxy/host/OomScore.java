package dev.kubeproxy.host;

import dev.kubeproxy.logging.Log;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Writes this process's OOM score adjustment (upstream's oom.ApplyOOMScoreAdj for "self"). */
public final class OomScore {
  private OomScore() {}

  /** Two attempts 100 ms apart, as upstream; throws the last error. */
  public static void apply(Path oomScoreAdjFile, int value) throws IOException {
    if (value < -1000 || value > 1000) {
      throw new IOException("invalid value(" + value + ") specified for oom_score_adj. Values must be within the range [-1000, 1000]");
    }
    Log.plain(4, "attempting to set \"" + oomScoreAdjFile + "\" to \"" + value + "\"");
    IOException last = null;
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        Sysctl.writeInt(oomScoreAdjFile, value);
        return;
      } catch (IOException e) {
        if (e.getCause() instanceof NoSuchFileException) {
          Log.plain(2, "\"" + oomScoreAdjFile + "\" does not exist");
          throw e;
        }
        last = e;
        Log.plain(3, e.getMessage());
        try {
          Thread.sleep(100);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
    Log.plain(2, "failed to set \"" + oomScoreAdjFile + "\" to \"" + value + "\": " + last.getMessage());
    throw last;
  }
}
