package dev.kubeproxy.e2e;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * What one probe got back: the backend that answered and the source address it saw, or why
 * nothing answered ("refused", "timeout", "unreachable", "error ...").
 */
public record Answer(String raw, String backend, String seenSource, int httpStatus) {

  static Answer parse(String line) {
    String[] f = line.split(" ", 3);
    if (f[0].equals("ok") && f.length >= 3) {
      return new Answer(line, f[1], f[2].trim(), 0);
    }
    if (f[0].equals("http") && f.length >= 2) {
      return new Answer(line, null, null, Integer.parseInt(f[1]));
    }
    return new Answer(line, null, null, 0);
  }

  public boolean ok() {
    return backend != null;
  }

  public boolean refused() {
    return raw.equals("refused");
  }

  public boolean timedOut() {
    return raw.equals("timeout");
  }

  /** True when the backend saw this source address (compared as addresses, not strings). */
  public boolean sourceIs(String ip) {
    return ok() && sameAddress(seenSource, ip);
  }

  static boolean sameAddress(String a, String b) {
    try {
      return InetAddress.getByName(a).equals(InetAddress.getByName(b));
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return raw;
  }
}
