package dev.kubeproxy.backend.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reader over "nft list" output as nft 1.0.6 prints it (fixtures listed from a kernel table the agent wrote). */
@Unit
class NftablesRulesReaderTest {
  static final ServicePortName SHOP = new ServicePortName(new NamespacedName("shop", "shop"), "http", "TCP");
  static final ServicePort PORT = new ServicePort(SHOP, "10.96.0.30", 80, "TCP", 30080, List.of(),
      List.of("192.168.200.100"), List.of("192.168.200.0/24"), false, 0, true, false, 32000, "");

  static String resource(String name) throws IOException {
    try (InputStream in = NftablesRulesReaderTest.class.getResourceAsStream("/explain/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void kernelChainsAndTheElementsThatAreTheServicePorts() {
    CommandRunner nft = new CommandRunner() {
      @Override
      public Result run(List<String> argv, CharSequence stdin) {
        String what = argv.get(2) + " " + argv.get(5);
        try {
          return switch (what) {
            case "chain service-65XLO5OJ-shop/shop/tcp/http" ->
                new Result(0, resource("nft-list-chain-service-shop.txt"), "");
            case "map service-ips" -> new Result(0, resource("nft-list-map-service-ips.txt"), "");
            case "map endpoint-ranges-tcp-0" -> new Result(0, resource("nft-list-map-endpoint-ranges-tcp-0.txt"), "");
            default -> new Result(1, "", "Error: No such file or directory");
          };
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }
    };
    ProgrammedRules rules = new NftablesRulesReader(IpFamily.IPv4).fromKernel(nft, PORT, List.of());
    assertEquals(List.of(
        "chain service-65XLO5OJ-shop/shop/tcp/http:",
        "  meta l4proto tcp dnat ip to numgen random mod 2 offset 48 map @endpoint-ranges-tcp-0",
        "map service-ips: 10.96.0.30 . tcp . 80 : goto service-65XLO5OJ-shop/shop/tcp/http",
        "map service-ips: 192.168.200.100 . tcp . 80 : goto external-65XLO5OJ-shop/shop/tcp/http",
        "map endpoint-ranges-tcp-0: 48 : 10.244.1.8 . 8080",
        "map endpoint-ranges-tcp-0: 49 : 10.244.2.8 . 8080"), rules.lines());
  }

  @Test
  void dryRunLinesOfThePortOnly() {
    List<String> printed = List.of(
        "add chain ip kube-proxy service-65XLO5OJ-shop/shop/tcp/http",
        "add rule ip kube-proxy service-65XLO5OJ-shop/shop/tcp/http meta l4proto tcp dnat ip addr . port to numgen"
            + " random mod 2 offset 48 map @endpoint-ranges-tcp-0",
        "add chain ip kube-proxy service-65XLO5OJ-shop/shop/tcp/http2",
        "add element ip kube-proxy firewall-ips { 192.168.200.100 . tcp . 80 comment \"shop/shop:http\" : goto x }",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 47 : 10.244.1.7 . 8080 }",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 48 : 10.244.1.8 . 8080 }",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 49 : 10.244.2.8 . 8080 }",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 50 : 10.244.2.9 . 8080 }");
    ProgrammedRules rules = new NftablesRulesReader(IpFamily.IPv4).fromDryRun(printed, PORT, List.of());
    assertEquals(List.of(printed.get(0), printed.get(1), printed.get(3), printed.get(5), printed.get(6)),
        rules.lines());
  }

  /** A ClusterIP-only port with one endpoint has no chain: its element of single-endpoint-services is what it is. */
  @Test
  void aChainlessPortIsItsSingleEndpointElement() {
    ServicePort dns = new ServicePort(new ServicePortName(new NamespacedName("kube-system", "dns"), "dns", "UDP"),
        "10.96.0.10", 53, "UDP", 0, List.of(), List.of(), List.of(), false, 0, false, false, 0, "");
    List<String> printed = List.of(
        "add element ip kube-proxy single-endpoint-services { 10.96.0.9 . udp . 53 : 10.244.1.2 . 53 ,"
            + " 10.96.0.10 . udp . 53 : 10.244.1.3 . 53 , 10.96.0.10 . tcp . 53 : 10.244.1.3 . 53 }");
    assertEquals(List.of("add element ip kube-proxy single-endpoint-services { 10.96.0.10 . udp . 53 : 10.244.1.3 . 53 }"),
        new NftablesRulesReader(IpFamily.IPv4).fromDryRun(printed, dns, List.of()).lines());
    CommandRunner nft = (argv, stdin) -> argv.get(2).equals("map") && argv.get(5).equals("single-endpoint-services")
        ? new CommandRunner.Result(0, "table ip kube-proxy {\n\tmap single-endpoint-services {\n"
            + "\t\ttype ipv4_addr . inet_proto . inet_service : ipv4_addr . inet_service\n"
            + "\t\telements = { 10.96.0.9 . udp . 53 : 10.244.1.2 . 53,\n\t\t\t     10.96.0.10 . udp . 53 : 10.244.1.3 . 53 }\n"
            + "\t}\n}\n", "")
        : new CommandRunner.Result(1, "", "Error: No such file or directory");
    assertEquals(List.of("map single-endpoint-services: 10.96.0.10 . udp . 53 : 10.244.1.3 . 53"),
        new NftablesRulesReader(IpFamily.IPv4).fromKernel(nft, dns, List.of()).lines());
  }

  @Test
  void dryRunElementsAreTheKeyRangesOfTheChainsRegion() {
    List<String> printed = List.of(
        "add rule ip kube-proxy service-65XLO5OJ-shop/shop/tcp/http meta l4proto tcp dnat ip addr . port to numgen"
            + " random mod 24504480 offset 33554432 map @endpoint-ranges-tcp-0",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 0-12252239 : 10.244.1.7 . 8080 }",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 33554432-45806671 : 10.244.1.8 . 8080 }",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 45806672-58058911 : 10.244.2.8 . 8080 }",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 67108864-79361103 : 10.244.2.9 . 8080 }");
    ProgrammedRules rules = new NftablesRulesReader(IpFamily.IPv4).fromDryRun(printed, PORT, List.of());
    assertEquals(List.of(printed.get(0), printed.get(2), printed.get(3)), rules.lines());
  }

  @Test
  void dryRunElementsOfOneChainAmongOthersInOneCommand() {
    List<String> printed = List.of(
        "add rule ip kube-proxy service-65XLO5OJ-shop/shop/tcp/http meta l4proto tcp dnat ip addr . port to numgen"
            + " random mod 24504480 offset 33554432 map @endpoint-ranges-tcp-0",
        "add element ip kube-proxy endpoint-ranges-tcp-0 { 0-12252239 : 10.244.1.7 . 8080 , 33554432-45806671 :"
            + " 10.244.1.8 . 8080 , 45806672-58058911 : 10.244.2.8 . 8080 , 67108864-79361103 : 10.244.2.9 . 8080 }");
    ProgrammedRules rules = new NftablesRulesReader(IpFamily.IPv4).fromDryRun(printed, PORT, List.of());
    assertEquals(List.of(printed.get(0), "add element ip kube-proxy endpoint-ranges-tcp-0 { 33554432-45806671 :"
        + " 10.244.1.8 . 8080 , 45806672-58058911 : 10.244.2.8 . 8080 }"), rules.lines());
  }
}
