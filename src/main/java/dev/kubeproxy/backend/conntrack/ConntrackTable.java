package dev.kubeproxy.backend.conntrack;

import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.util.List;

/** The kernel's conntrack table of one network namespace (upstream conntrack.Interface). */
public interface ConntrackTable {

  /** Every entry of this family. */
  List<ConntrackFlow> list(IpFamily family) throws IOException;

  /**
   * Deletes these entries; one already gone is not an error.
   *
   * @return how many were deleted
   * @throws IOException when the kernel refused some deletions for another reason; the message
   *                     says how many were deleted before
   */
  int delete(IpFamily family, List<ConntrackFlow> flows) throws IOException;
}
