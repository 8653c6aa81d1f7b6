package dev.kubeproxy.cluster;

import java.util.Set;

/**
 * One rejected field of an object, worded as the API server words it (the path and what is
 * wrong), and the wording of each kind of rejection {@link ObjectValidator} makes.
 */
public record FieldError(String field, String detail) {
  @Override
  public String toString() {
    return field + ": " + detail;
  }

  static FieldError dns1123Label(String field, String value) {
    return new FieldError(field, "Invalid value: " + quote(value) + ": a lowercase RFC 1123 label must consist"
        + " of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character,"
        + " at most 63 characters");
  }

  static FieldError dns1123Subdomain(String field, String value) {
    return new FieldError(field, "Invalid value: " + quote(value) + ": a lowercase RFC 1123 subdomain must"
        + " consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric"
        + " character, at most 253 characters");
  }

  static FieldError port(String field, int value) {
    return new FieldError(field, "Invalid value: " + value + ": must be between 1 and 65535, inclusive");
  }

  static FieldError ip(String field, String value) {
    return new FieldError(field, "Invalid value: " + quote(value) + ": must be a valid IP address, (e.g."
        + " 10.9.8.7 or 2001:db8::ffff)");
  }

  static FieldError unsupported(String field, String value, Set<String> allowed) {
    return new FieldError(field, "Unsupported value: " + quote(value) + ": supported values: "
        + String.join(", ", new java.util.TreeSet<>(allowed).stream().map(FieldError::quote).toList()));
  }

  /** Quoted with control and non-ASCII characters escaped, so a hostile value cannot forge log lines. */
  static String quote(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    int shown = Math.min(s.length(), 100);
    for (int i = 0; i < shown; i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c >= 0x7f) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    if (s.length() > shown) {
      b.append("...(").append(s.length()).append(" characters)");
    }
    return b.append('"').toString();
  }
}
