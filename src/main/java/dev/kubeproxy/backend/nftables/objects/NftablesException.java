package dev.kubeproxy.backend.nftables.objects;

/**
 * nft refused a transaction or a listing.
 *
 * @see #failingLine() the transaction line nft reported, when it reported one
 */
public class NftablesException extends Exception {
  private final String failingLine;
  private final boolean notFound;

  public NftablesException(String message, String failingLine, boolean notFound) {
    super(message);
    this.failingLine = failingLine;
    this.notFound = notFound;
  }

  public NftablesException(String message, Throwable cause) {
    super(message, cause);
    this.failingLine = null;
    this.notFound = false;
  }

  /** The input line nft complained about, or null. */
  public String failingLine() {
    return failingLine;
  }

  /** The error was "No such file or directory" (e.g. deleting a table that is not there). */
  public boolean notFound() {
    return notFound;
  }
}
