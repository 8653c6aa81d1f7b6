package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.proxy.IpFamily;
import java.io.PrintStream;

/** --dry-run: prints each transaction instead of applying it; needs neither root nor nft. */
final class DryRunNftables implements Nftables {
  private final IpFamily family;
  private final PrintStream out;

  DryRunNftables(IpFamily family, PrintStream out) {
    this.family = family;
    this.out = out;
  }

  @Override
  public void run(Transaction tx) {
    synchronized (out) {
      out.print(tx.render(family));
      out.flush();
    }
  }

  @Override
  public TableContents list() {
    return TableContents.absent();
  }
}
