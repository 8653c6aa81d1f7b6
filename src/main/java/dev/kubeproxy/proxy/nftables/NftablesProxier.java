package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.platform.CommandRunner;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.ProxierSettings;
import dev.kubeproxy.proxy.ProxyBackend;
import dev.kubeproxy.proxy.ProxyState;
import dev.kubeproxy.proxy.SyncResult;

/** The nftables backend for one family. Skeleton: its helper writes it. */
public class NftablesProxier implements ProxyBackend {
  private final ProxierSettings settings;

  public NftablesProxier(ProxierSettings settings, CommandRunner runner) {
    this.settings = settings;
  }

  @Override
  public IpFamily family() {
    return settings.family();
  }

  @Override
  public SyncResult sync(ProxyState state) throws SyncException {
    throw new SyncException("nftables backend not written yet");
  }

  @Override
  public void privilegedInit() throws SyncException {}

  @Override
  public void cleanup() throws SyncException {}
}
