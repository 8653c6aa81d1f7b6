package dev.kubeproxy.cluster;

import java.util.regex.Pattern;

/**
 * The name and value formats the API server checks objects against (apimachinery's
 * util/validation/validation.go: IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label,
 * IsQualifiedName, IsValidLabelValue, IsValidPortName), as predicates; what an invalid value
 * is reported as is the caller's. The checks of names, labels and annotation keys are written out
 * instead of matched with upstream's regular expressions: every object of every list passes
 * through them, and a matcher per value is garbage at the largest clusters' start.
 */
final class NameFormats {
  private static final Pattern IANA_SVC_NAME = Pattern.compile("[-a-z0-9]+");

  private NameFormats() {}

  /** IsDNS1123Label: 1 to 63 of [a-z0-9-], the first and the last [a-z0-9]. */
  static boolean isDns1123Label(String value) {
    return value != null && value.length() <= 63 && isLabel(value, 0, value.length());
  }

  /** IsDNS1123Subdomain: at most 253 chars, labels as above (any length each) joined by '.'. */
  static boolean isDns1123Subdomain(String value) {
    return value != null && isSubdomain(value, 0, value.length());
  }

  /** Whether value[start, end) is a DNS-1123 subdomain. */
  private static boolean isSubdomain(String value, int start, int end) {
    if (end - start > 253) {
      return false;
    }
    for (int from = start; ; ) {
      int dot = value.indexOf('.', from);
      int labelEnd = dot < 0 || dot > end ? end : dot;
      if (!isLabel(value, from, labelEnd)) {
        return false;
      }
      if (labelEnd == end) {
        return true;
      }
      from = labelEnd + 1;
    }
  }

  /** IsDNS1035Label: as a DNS-1123 label, but starting with a letter. */
  static boolean isDns1035Label(String value) {
    return value != null && value.length() <= 63 && isLabel(value, 0, value.length())
        && value.charAt(0) >= 'a' && value.charAt(0) <= 'z';
  }

  /** IsQualifiedName: a name part of at most 63 ([A-Za-z0-9._-], alphanumeric at both ends), after an optional DNS-1123 subdomain and '/'. */
  static boolean isQualifiedName(String key) {
    String k = key == null ? "" : key;
    int slash = k.indexOf('/');
    return isNamePart(k, slash + 1, k.length())
        && (slash < 0 || isSubdomain(k, 0, slash));
  }

  /** IsValidLabelValue: empty, or a qualified name's name part. */
  static boolean isLabelValue(String value) {
    return value == null || value.isEmpty() || isNamePart(value, 0, value.length());
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

  /** Whether value[from, to) is 1 to 63 of ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]. */
  private static boolean isNamePart(String value, int from, int to) {
    if (from >= to || to - from > 63 || !isAlphanumeric(value.charAt(from)) || !isAlphanumeric(value.charAt(to - 1))) {
      return false;
    }
    for (int i = from + 1; i < to - 1; i++) {
      char c = value.charAt(i);
      if (c != '-' && c != '_' && c != '.' && !isAlphanumeric(c)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isAlphanumeric(char c) {
    return isLowerAlphanumeric(c) || (c >= 'A' && c <= 'Z');
  }

  private static boolean isLowerAlphanumeric(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  }
}
