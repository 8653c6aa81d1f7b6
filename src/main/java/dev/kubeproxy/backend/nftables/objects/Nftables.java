package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.backend.nftables.NftCommand;

import java.util.Set;

/**
 * Where transactions go: the kernel through the nft binary ({@link NftCommand}) or the in-memory
 * in-memory fake of the tests. Blocking: call from a worker thread.
 */
public interface Nftables {

  /** Applies the transaction atomically: on failure nothing of it is applied. */
  void run(Transaction tx) throws NftablesException;

  /**
   * Which commands of a refused transaction the kernel refuses, each checked on its own line
   * without committing anything (to find the Service behind a failed sync).
   *
   * @return indices into tx.operations(), empty when this cannot tell
   */
  default java.util.List<Integer> refusedCommands(Transaction tx) {
    return java.util.List.of();
  }

  /**
   * The packet counts of the named counters ({@link NftCounter}) in this family's kube-proxy table.
   *
   * @return counter name to packets; empty when there are none or this cannot read them
   */
  default java.util.Map<String, Long> counterPackets() throws NftablesException {
    return java.util.Map.of();
  }

  /** The chains and the sets (maps not included) that exist now in this family's kube-proxy table. */
  TableContents list() throws NftablesException;

  /**
   * @param exists whether the table exists at all
   * @param chains chain names
   * @param sets   set names (not maps)
   */
  record TableContents(boolean exists, Set<String> chains, Set<String> sets) {
    public static TableContents absent() {
      return new TableContents(false, Set.of(), Set.of());
    }
  }
}
