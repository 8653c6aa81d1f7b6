package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.model.ServicePortName;
import java.util.Arrays;

/**
 * Which service port wrote each line of a restore input, so that a line iptables-restore refuses
 * names the Service to leave out instead of failing every Service's rules. Per
 * section (filter rules, nat chain declarations, nat rules), the first line of each service port's
 * block in generation order, and where the last block ends.
 */
final class LineOwners {
  private final ServicePortName[] order;
  private final int[][] starts;
  /** Payload line number (1-based) of each section's first line. */
  private final int[] sectionFirstLine;

  /** @param starts per section, n + 1 offsets (0-based lines in that section); the last is the end */
  LineOwners(ServicePortName[] order, int[][] starts, int[] sectionFirstLine) {
    this.order = order;
    this.starts = starts;
    this.sectionFirstLine = sectionFirstLine;
  }

  static LineOwners none() {
    return new LineOwners(new ServicePortName[0], new int[][] {{0}, {0}, {0}}, new int[] {0, 0, 0});
  }

  /** The service port whose rules hold this 1-based payload line, or null (a static line, or unknown). */
  ServicePortName at(int payloadLine) {
    for (int s = sectionFirstLine.length - 1; s >= 0; s--) {
      if (sectionFirstLine[s] > 0 && payloadLine >= sectionFirstLine[s]) {
        int offset = payloadLine - sectionFirstLine[s];
        int[] st = starts[s];
        int n = order.length;
        if (n == 0 || offset < st[0] || offset >= st[n]) {
          return null;
        }
        int i = Arrays.binarySearch(st, 0, n, offset);
        if (i < 0) {
          i = -i - 2;
        }
        // Blocks can be empty (several equal starts): the owner is the last block starting at or before.
        while (i + 1 < n && st[i + 1] == offset) {
          i++;
        }
        return order[i];
      }
    }
    return null;
  }
}
