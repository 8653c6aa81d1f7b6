package dev.kubeproxy.cli;

import dev.kubeproxy.gotext.GoQuote;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * Parses the command line with picocli, set up for Go/pflag syntax: {@code --flag=value},
 * {@code --flag value}, bare booleans and {@code --bool=false}, {@code -v=N}/{@code --v=N},
 * '_' read as '-' in flag names, repeatable list flags. Values are converted afterwards by
 * {@link FlagValues} so that the errors read like upstream's.
 */
public final class FlagParser {
  private FlagParser() {}

  public static ParsedFlags parse(List<String> args) throws FlagParseException {
    CommandSpec spec = CommandSpec.create().name("kube-proxy");
    spec.parser()
        .expandAtFiles(false)
        .posixClusteredShortOptionsAllowed(true)
        .abbreviatedOptionsAllowed(false)
        .splitQuotedStrings(false)
        .trimQuotes(false)
        .unmatchedOptionsAllowedAsOptionParameters(true)
        .overwrittenOptionsAllowed(true);
    for (FlagDef def : KubeProxyFlags.ALL) {
      List<String> names = new ArrayList<>();
      if (def.shorthand() != null) {
        names.add("-" + def.shorthand());
      }
      names.add("--" + def.name());
      boolean optionalValue = def.isBool() || def.type() == FlagType.VERSION;
      spec.addOption(OptionSpec.builder(names.toArray(new String[0]))
          .arity(optionalValue ? "0..1" : "1")
          .type(List.class)
          .auxiliaryTypes(String.class)
          .fallbackValue("true")
          .userObject(def)
          .build());
    }
    spec.addPositional(PositionalParamSpec.builder().arity("0..*").type(List.class)
        .auxiliaryTypes(String.class).build());

    ParseResult result;
    try {
      result = new CommandLine(spec).parseArgs(normalize(args).toArray(new String[0]));
    } catch (CommandLine.UnmatchedArgumentException e) {
      String arg = e.getUnmatched().isEmpty() ? "" : e.getUnmatched().get(0);
      throw new FlagParseException(unknownFlag(arg));
    } catch (CommandLine.MissingParameterException e) {
      ArgSpec missing = e.getMissing().isEmpty() ? null : e.getMissing().get(0);
      String name = missing instanceof OptionSpec o ? ((FlagDef) o.userObject()).name() : "?";
      throw new FlagParseException("flag needs an argument: --" + name);
    } catch (CommandLine.ParameterException e) {
      throw new FlagParseException(e.getMessage());
    }

    List<String> positional = new ArrayList<>();
    for (PositionalParamSpec p : result.matchedPositionals()) {
      List<String> values = p.getValue();
      if (values != null) {
        positional.addAll(values);
      }
    }
    positional.removeIf(String::isEmpty);
    if (!positional.isEmpty()) {
      List<String> quoted = new ArrayList<>();
      for (String p : positional) {
        quoted.add(GoQuote.quote(p));
      }
      throw new FlagParseException("\"kube-proxy\" does not take any arguments, got [" + String.join(" ", quoted) + "]");
    }

    ParsedFlags parsed = new ParsedFlags();
    for (OptionSpec option : new java.util.LinkedHashSet<>(result.matchedOptions())) {
      FlagDef def = (FlagDef) option.userObject();
      List<String> values = option.getValue();
      for (String raw : values) {
        if ((def.type() == FlagType.IP || def.type() == FlagType.IPPORT) && raw.isEmpty()) {
          continue; // an empty address leaves the setting alone, as upstream
        }
        Object value;
        try {
          value = FlagValues.convert(def, raw);
        } catch (IllegalArgumentException e) {
          throw new FlagParseException("invalid argument " + GoQuote.quote(raw) + " for " + GoQuote.quote(def.display())
              + " flag: " + e.getMessage());
        }
        parsed.set(def, raw, value);
      }
      if (def.deprecation() != null) {
        parsed.warn("Flag --" + def.name() + " has been deprecated, " + def.deprecation());
      }
    }
    return parsed;
  }

  /** '_' in a flag name means '-' (component-base's normaliser); values are left alone. */
  static List<String> normalize(List<String> args) {
    List<String> out = new ArrayList<>();
    boolean endOfFlags = false;
    for (String a : args) {
      if (!endOfFlags && a.equals("--")) {
        endOfFlags = true;
      } else if (!endOfFlags && a.startsWith("-") && a.length() > 1) {
        int eq = a.indexOf('=');
        String name = eq < 0 ? a : a.substring(0, eq);
        String rest = eq < 0 ? "" : a.substring(eq);
        int dashes = name.startsWith("--") ? 2 : 1;
        a = name.substring(0, dashes) + name.substring(dashes).replace('_', '-') + rest;
      }
      out.add(a);
    }
    return out;
  }

  private static String unknownFlag(String arg) {
    String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
    if (name.startsWith("--")) {
      return "unknown flag: " + name;
    }
    if (name.startsWith("-") && name.length() > 1) {
      return "unknown shorthand flag: '" + name.charAt(1) + "' in " + arg;
    }
    return "unknown command " + GoQuote.quote(arg) + " for \"kube-proxy\"";
  }
}
