package dev.kubeproxy.cli;

import dev.kubeproxy.gotext.GoDuration;
import dev.kubeproxy.net.HostPortText;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.gotext.GoQuote;
import dev.kubeproxy.logging.VModule;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Converts one flag value the way the Go flag types do (pflag, component-base's cliflag), with
 * their error texts. Every method throws IllegalArgumentException whose message is the reason part
 * of {@code invalid argument "x" for "--flag" flag: <reason>}.
 */
public final class FlagValues {
  private FlagValues() {}

  private static final Pattern GO_FLOAT = Pattern.compile(
      "[+-]?((\\d[\\d_]*(\\.[\\d_]*)?|\\.\\d[\\d_]*)([eE][+-]?\\d+)?|[iI][nN][fF]([iI][nN][iI][tT][yY])?|[nN][aA][nN])");
  private static final Pattern QUANTITY =
      Pattern.compile("^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+|[KMGTPE]i|[numkMGTPE])?$");

  public static Object convert(FlagDef def, String raw) {
    return switch (def.type()) {
      case STRING, PROXY_MODE, LOCAL_MODE -> raw;
      case BOOL -> parseBool(raw);
      case INT32 -> parseInt32(raw);
      case FLOAT32 -> parseFloat32(raw);
      case DURATION -> GoDuration.parse(raw);
      case IP -> ip(raw);
      case IPPORT -> ipPort(raw);
      case STRINGS -> strings(raw);
      case MAP_STRING_BOOL -> mapStringBool(raw);
      case LEVEL -> parseLevel(raw);
      case VMODULE -> VModule.parse(raw);
      case QUANTITY -> quantity(raw);
      case VERSION -> raw;
    };
  }

  /** Go's strconv.ParseBool. */
  public static boolean parseBool(String s) {
    return switch (s) {
      case "1", "t", "T", "TRUE", "true", "True" -> true;
      case "0", "f", "F", "FALSE", "false", "False" -> false;
      default -> throw new IllegalArgumentException("strconv.ParseBool: parsing " + GoQuote.quote(s) + ": invalid syntax");
    };
  }

  /** Go's strconv.ParseInt(s, 0, 32): decimal, 0x, 0o, 0b or a leading 0 for octal. */
  public static int parseInt32(String s) {
    BigInteger v = parseGoInteger(s, "strconv.ParseInt");
    if (v.compareTo(BigInteger.valueOf(Integer.MIN_VALUE)) < 0 || v.compareTo(BigInteger.valueOf(Integer.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("strconv.ParseInt: parsing " + GoQuote.quote(s) + ": value out of range");
    }
    return v.intValue();
  }

  private static BigInteger parseGoInteger(String s, String fn) {
    String t = s;
    boolean neg = false;
    if (t.startsWith("+") || t.startsWith("-")) {
      neg = t.startsWith("-");
      t = t.substring(1);
    }
    int radix = 10;
    String lower = t.toLowerCase();
    if (lower.startsWith("0x")) {
      radix = 16;
      t = t.substring(2);
    } else if (lower.startsWith("0o")) {
      radix = 8;
      t = t.substring(2);
    } else if (lower.startsWith("0b")) {
      radix = 2;
      t = t.substring(2);
    } else if (t.length() > 1 && t.startsWith("0")) {
      radix = 8;
      t = t.substring(1);
    }
    if (radix != 10) {
      t = t.replace("_", "");
    }
    try {
      if (t.isEmpty() || !t.chars().allMatch(Character::isLetterOrDigit)) {
        throw new NumberFormatException();
      }
      BigInteger v = new BigInteger(t, radix);
      return neg ? v.negate() : v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(fn + ": parsing " + GoQuote.quote(s) + ": invalid syntax");
    }
  }

  /** Go's strconv.ParseFloat(s, 32). */
  public static float parseFloat32(String s) {
    if (!GO_FLOAT.matcher(s).matches()) {
      throw new IllegalArgumentException("strconv.ParseFloat: parsing " + GoQuote.quote(s) + ": invalid syntax");
    }
    String t = s.replace("_", "").toLowerCase();
    float f;
    if (t.contains("nan")) {
      f = Float.NaN;
    } else if (t.contains("inf")) {
      f = t.startsWith("-") ? Float.NEGATIVE_INFINITY : Float.POSITIVE_INFINITY;
    } else {
      f = Float.parseFloat(t);
      if (Float.isInfinite(f)) {
        throw new IllegalArgumentException("strconv.ParseFloat: parsing " + GoQuote.quote(s) + ": value out of range");
      }
    }
    return f;
  }

  /** klog's verbosity: strconv.ParseUint(s, 10, 32). */
  public static int parseLevel(String s) {
    try {
      if (s.isEmpty() || !s.chars().allMatch(Character::isDigit)) {
        throw new NumberFormatException();
      }
      long v = Long.parseLong(s);
      if (v > 0xFFFFFFFFL) {
        throw new IllegalArgumentException("strconv.ParseUint: parsing " + GoQuote.quote(s) + ": value out of range");
      }
      if (v > Integer.MAX_VALUE) {
        return Integer.MAX_VALUE;
      }
      return (int) v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("strconv.ParseUint: parsing " + GoQuote.quote(s) + ": invalid syntax");
    }
  }

  /** cliflag's IP flag. */
  public static String ip(String s) {
    if (!IpAddresses.isIp(s)) {
      throw new IllegalArgumentException(GoQuote.quote(s) + " is not a valid IP address");
    }
    return s;
  }

  /** cliflag's IPPort flag: a bare IP or ip:port. */
  public static String ipPort(String s) {
    if (IpAddresses.isIp(s)) {
      return s;
    }
    HostPortText hp;
    try {
      hp = HostPortText.split(s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(GoQuote.quote(s) + " is not in a valid format (ip or ip:port): " + e.getMessage());
    }
    if (!IpAddresses.isIp(hp.host())) {
      throw new IllegalArgumentException(GoQuote.quote(hp.host()) + " is not a valid IP address");
    }
    if (hp.port().isEmpty() || !hp.port().chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException(GoQuote.quote(hp.port()) + " is not a valid number");
    }
    return s;
  }

  /** pflag's stringSlice: comma separated. */
  public static List<String> strings(String s) {
    List<String> out = new ArrayList<>();
    if (s.isEmpty()) {
      return out;
    }
    for (String part : s.split(",", -1)) {
      out.add(part.trim());
    }
    return out;
  }

  /** cliflag's MapStringBool: k=v,k2=v2. */
  public static Map<String, Boolean> mapStringBool(String s) {
    Map<String, Boolean> m = new TreeMap<>();
    if (s.isEmpty()) {
      return m;
    }
    for (String pair : s.split(",")) {
      pair = pair.trim();
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("missing bool value for " + pair);
      }
      String k = pair.substring(0, eq).trim();
      String v = pair.substring(eq + 1).trim();
      try {
        m.put(k, parseBool(v));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("invalid value of " + k + "=" + v + ", err: " + e.getMessage());
      }
    }
    return m;
  }

  /** resource.Quantity syntax. */
  public static String quantity(String s) {
    if (!QUANTITY.matcher(s).matches()) {
      throw new IllegalArgumentException("quantities must match the regular expression "
          + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }
    return s;
  }

}
