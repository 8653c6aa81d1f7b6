package dev.kubeproxy.cli;

/** A command-line error, worded as upstream's (pflag/cobra) messages. */
public class FlagParseException extends Exception {
  public FlagParseException(String message) {
    super(message);
  }
}
