package dev.kubeproxy.cli;

/** pflag value types, named as upstream's --help prints them. */
public enum FlagType {
  STRING("string"),
  BOOL(""),
  INT32("int32"),
  FLOAT32("float32"),
  DURATION("duration"),
  IP("ip"),
  IPPORT("ipport"),
  STRINGS("strings"),
  MAP_STRING_BOOL("mapStringBool"),
  PROXY_MODE("ProxyMode"),
  LOCAL_MODE("LocalMode"),
  LEVEL("Level"),
  VMODULE("pattern=N,..."),
  QUANTITY("quantity"),
  VERSION("version[=true]");

  /** The type word shown after the flag name in --help ("" for booleans). */
  public final String helpName;

  FlagType(String helpName) {
    this.helpName = helpName;
  }
}
