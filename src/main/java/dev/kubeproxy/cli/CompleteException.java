package dev.kubeproxy.cli;

/** Complete failed: the configuration cannot be built (upstream's "failed complete: ..."). */
public class CompleteException extends Exception {
  public CompleteException(String message) {
    super(message);
  }
}
