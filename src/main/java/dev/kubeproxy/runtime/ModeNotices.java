package dev.kubeproxy.runtime;

import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.logging.Log;
import java.util.ArrayList;
import java.util.List;

/**
 * The start-up warnings about the proxy mode, as upstream 1.37 gives them once the proxier of the
 * mode is built (cmd/kube-proxy/app/server_linux.go createProxier): the ipvs deprecation, logged and
 * posted on the Node as a Warning event, and a warning when no mode was chosen explicitly, since
 * the default is to change from iptables to nftables.
 */
public final class ModeNotices {
  static final String IPVS_DEPRECATION =
      "The ipvs proxier is now deprecated and may be removed in a future release. Please use 'nftables' instead.";
  static final String DEFAULTED_MODE = "No proxy mode was specified, so iptables is used; the default will change "
      + "to nftables in a future release. Set mode (--proxy-mode) to iptables, ipvs or nftables explicitly";

  private ModeNotices() {}

  /**
   * Logs the warnings for this configuration and returns the events to post.
   *
   * @param configuredMode the mode as configured (null or empty: not chosen)
   */
  public static List<EventRequest> announce(String configuredMode) {
    List<EventRequest> events = new ArrayList<>();
    if (configuredMode == null || configuredMode.isEmpty()) {
      Log.warn(DEFAULTED_MODE);
    } else if (ProxyMode.IPVS.text().equals(configuredMode)) {
      Log.warn(IPVS_DEPRECATION);
      events.add(EventRequest.onNode(EventRequest.WARNING, "IPVSDeprecation", "ProxyModeCheck", IPVS_DEPRECATION));
    }
    return events;
  }
}
