package dev.kubeproxy.backend.conntrack;

/**
 * One conntrack entry as the reconciler needs it: both tuples, the zone and the kernel's id (so
 * that a delete cannot hit a newer entry that reuses the tuple). Addresses are normalised text.
 *
 * @param protocol IANA protocol number (17 UDP, 132 SCTP, 6 TCP)
 * @param zone     conntrack zone, 0 for the default one
 * @param id       CTA_ID, or -1 when the kernel did not send it
 */
public record ConntrackFlow(
    int protocol,
    String origSrc, int origSrcPort, String origDst, int origDstPort,
    String replySrc, int replySrcPort, String replyDst, int replyDstPort,
    int zone, long id) {

  public static final int TCP = 6;
  public static final int UDP = 17;
  public static final int SCTP = 132;

  @Override
  public String toString() {
    return "proto=" + protocol + " src=" + origSrc + " dst=" + origDst + " sport=" + origSrcPort + " dport="
        + origDstPort + " reply-src=" + replySrc + " reply-sport=" + replySrcPort;
  }
}
