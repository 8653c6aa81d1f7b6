package dev.kubeproxy.cluster;

import java.util.regex.Pattern;

/**
 * The name and value formats the API server checks objects against (apimachinery's
 * util/validation/validation.go: IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label,
 * IsQualifiedName, IsValidLabelValue, IsValidPortName), as predicates; what an invalid value
 * is reported as is the caller's. The DNS-1123 checks are written out instead of matched with
 * upstream's regular expressions: every endpoint of every EndpointSlice passes through them.
 */
final class NameFormats {
  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern QUALIFIED_NAME_PART = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern IANA_SVC_NAME = Pattern.compile("[-a-z0-9]+");

  private NameFormats() {}

  /** IsDNS1123Label: 1 to 63 of [a-z0-9-], the first and the last [a-z0-9]. */
  static boolean isDns1123Label(String value) {
    return value != null && value.length() <= 63 && isLabel(value, 0, value.length());
  }

  /** IsDNS1123Subdomain: at most 253 chars, labels as above (any length each) joined by '.'. */
  static boolean isDns1123Subdomain(String value) {
    if (value == null || value.length() > 253) {
      return false;
    }
    for (int from = 0; ; ) {
      int dot = value.indexOf('.', from);
      if (!isLabel(value, from, dot < 0 ? value.length() : dot)) {
        return false;
      }
      if (dot < 0) {
        return true;
      }
      from = dot + 1;
    }
  }

  /** IsDNS1035Label: as a DNS-1123 label, but starting with a letter. */
  static boolean isDns1035Label(String value) {
    return value != null && value.length() <= 63 && DNS1035_LABEL.matcher(value).matches();
  }

  /** IsQualifiedName: a name part of at most 63 ([A-Za-z0-9._-], alphanumeric at both ends), after an optional DNS-1123 subdomain and '/'. */
  static boolean isQualifiedName(String key) {
    String k = key == null ? "" : key;
    int slash = k.indexOf('/');
    String name = slash < 0 ? k : k.substring(slash + 1);
    return !name.isEmpty() && name.length() <= 63 && QUALIFIED_NAME_PART.matcher(name).matches()
        && (slash < 0 || isDns1123Subdomain(k.substring(0, slash)));
  }

  /** IsValidLabelValue: empty, or a qualified name's name part. */
  static boolean isLabelValue(String value) {
    return value == null || value.isEmpty() || (value.length() <= 63 && QUALIFIED_NAME_PART.matcher(value).matches());
  }

  /** IsValidPortName: an IANA service name (at most 15, a letter, no leading, trailing or double '-'). */
  static boolean isPortName(String value) {
    return value != null && !value.isEmpty() && value.length() <= 15 && IANA_SVC_NAME.matcher(value).matches()
        && value.chars().anyMatch(c -> c >= 'a' && c <= 'z') && !value.startsWith("-") && !value.endsWith("-")
        && !value.contains("--");
  }

  /** Whether value[from, to) is [a-z0-9]([-a-z0-9]*[a-z0-9])?. */
  private static boolean isLabel(String value, int from, int to) {
    if (from >= to || !isLowerAlphanumeric(value.charAt(from)) || !isLowerAlphanumeric(value.charAt(to - 1))) {
      return false;
    }
    for (int i = from + 1; i < to - 1; i++) {
      char c = value.charAt(i);
      if (c != '-' && !isLowerAlphanumeric(c)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isLowerAlphanumeric(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
}
