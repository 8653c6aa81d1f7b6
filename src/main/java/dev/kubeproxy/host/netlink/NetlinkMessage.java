package dev.kubeproxy.host.netlink;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One message of a received netlink datagram: its type, the sequence number of the request it
 * answers, its errno when it is an NLMSG_ERROR (0 for an acknowledgement), and where it lies in
 * the receive buffer.
 */
public record NetlinkMessage(int type, int sequence, int errno, int start, int length) {
  public static final int NLMSG_ERROR = 2;
  public static final int NLMSG_DONE = 3;
  private static final int HEADER = 16;

  /** The messages of the datagram in buffer[0, length). */
  public static List<NetlinkMessage> parse(byte[] buffer, int length) throws IOException {
    ByteBuffer in = ByteBuffer.wrap(buffer, 0, length).order(ByteOrder.nativeOrder());
    List<NetlinkMessage> out = new ArrayList<>();
    for (int start = 0; start + HEADER <= length; ) {
      int messageLength = in.getInt(start);
      if (messageLength < HEADER || start + messageLength > length) {
        throw new IOException("malformed netlink answer");
      }
      int type = in.getShort(start + 4) & 0xffff;
      int errno = type == NLMSG_ERROR && messageLength >= HEADER + 4 ? -in.getInt(start + HEADER) : 0;
      out.add(new NetlinkMessage(type, in.getInt(start + 8), errno, start, messageLength));
      start += (messageLength + 3) & ~3;
    }
    return out;
  }
}
