package dev.kubeproxy.backend.nftables.netlink;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The user data nft stores with tables, chains, rules and sets (libnftnl's nftnl_udata: one byte
 * type, one byte length, the value; integers in host order). The kernel keeps it opaque; nft reads
 * it back to print comments and set types, so it is written exactly as nft 1.0 writes it.
 */
final class UserData {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  UserData u32(int type, int value) {
    byte[] v = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array();
    return bytes(type, v);
  }

  /** A NUL-terminated string (comments). */
  UserData string(int type, String value) throws Unsupported {
    byte[] raw = value.getBytes(StandardCharsets.UTF_8);
    byte[] withNul = new byte[raw.length + 1];
    System.arraycopy(raw, 0, withNul, 0, raw.length);
    return bytes(type, withNul);
  }

  UserData nested(int type, UserData inner) throws Unsupported {
    return bytes(type, inner.toBytes());
  }

  private UserData bytes(int type, byte[] value) {
    if (value.length > 255) {
      throw new IllegalArgumentException("user data value longer than 255 bytes");
    }
    out.write(type);
    out.write(value.length);
    out.writeBytes(value);
    return this;
  }

  byte[] toBytes() {
    return out.toByteArray();
  }

  /** A comment as the only user data of a table, chain or rule (type 0 in each). */
  static byte[] comment(String text) throws Unsupported {
    if (text.getBytes(StandardCharsets.UTF_8).length + 1 > 255) {
      throw new Unsupported("comment longer than 254 bytes");
    }
    return new UserData().string(0, text).toBytes();
  }
}
