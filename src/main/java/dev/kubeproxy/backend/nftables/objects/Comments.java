package dev.kubeproxy.backend.nftables.objects;

import java.nio.charset.StandardCharsets;

/**
 * The kernel's limit on object comments: nft refuses a comment over 128 bytes
 * (NFTNL_UDATA_COMMENT_MAXLEN, "comment too long, 128 characters maximum allowed"), so one long
 * comment would fail the whole transaction. Upstream truncates the Service
 * comments in pkg/proxy/nftables/proxier.go syncProxyRules; here every comment is cut where the
 * objects are built, so the nft text, the netlink batch and the test fake all carry the same text.
 * Characters no nft string can carry (a double quote, line breaks and other control characters)
 * are replaced there too: names are validated before they get here, and this keeps a name that
 * slipped through from breaking, or adding to, the nft input.
 */
public final class Comments {
  static final int MAX_BYTES = 128;

  private Comments() {}

  /**
   * The comment with {@code "} as {@code '} and control characters as {@code ?}, cut to at most
   * 128 bytes of UTF-8 on a character boundary (null stays null).
   */
  public static String fit(String comment) {
    if (comment == null) {
      return null;
    }
    comment = printable(comment);
    if (comment.length() <= MAX_BYTES / 4) {
      return comment; // a UTF-16 unit is at most 3 bytes of UTF-8, a surrogate pair 4
    }
    byte[] raw = comment.getBytes(StandardCharsets.UTF_8);
    if (raw.length <= MAX_BYTES) {
      return comment;
    }
    int end = MAX_BYTES;
    while (end > 0 && (raw[end] & 0xc0) == 0x80) {
      end--; // raw[end] continues a character that starts before the cut
    }
    return new String(raw, 0, end, StandardCharsets.UTF_8);
  }

  private static String printable(String comment) {
    StringBuilder out = null;
    for (int i = 0; i < comment.length(); i++) {
      char c = comment.charAt(i);
      char replacement = c == '"' ? '\'' : c < 0x20 || c == 0x7f ? '?' : c;
      if (replacement != c && out == null) {
        out = new StringBuilder(comment.substring(0, i));
      }
      if (out != null) {
        out.append(replacement);
      }
    }
    return out == null ? comment : out.toString();
  }
}
