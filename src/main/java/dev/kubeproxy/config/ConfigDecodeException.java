package dev.kubeproxy.config;

/** The configuration file cannot be used: malformed, wrong apiVersion/kind, or a value of the wrong type. */
public class ConfigDecodeException extends Exception {
  public ConfigDecodeException(String message) {
    super(message);
  }
}
