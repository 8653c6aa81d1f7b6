package dev.kubeproxy.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code vertx run ... -conf file.json} form of the flags: each key is a flag name (with or
 * without leading dashes), each value the flag's value: a string, number or boolean; a list flag
 * (nodeport-addresses, ipvs-exclude-cidrs, vmodule) may be a JSON array; feature-gates may be an
 * object of booleans. Example:
 * <pre>{"config": "/etc/kube-proxy/config.yaml", "hostname-override": "node-1", "v": 2}</pre>
 */
public final class JsonArgs {
  private JsonArgs() {}

  public static List<String> toArgs(JsonObject json) {
    List<String> args = new ArrayList<>();
    if (json == null) {
      return args;
    }
    for (Map.Entry<String, Object> e : json) {
      String name = e.getKey().replaceFirst("^-+", "");
      Object v = e.getValue();
      String value;
      if (v instanceof JsonArray a) {
        List<String> parts = new ArrayList<>();
        a.forEach(item -> parts.add(String.valueOf(item)));
        value = String.join(",", parts);
      } else if (v instanceof JsonObject o) {
        List<String> parts = new ArrayList<>();
        o.forEach(g -> parts.add(g.getKey() + "=" + g.getValue()));
        value = String.join(",", parts);
      } else {
        value = String.valueOf(v);
      }
      args.add("--" + name + "=" + value);
    }
    return args;
  }
}
