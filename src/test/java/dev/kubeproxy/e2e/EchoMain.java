package dev.kubeproxy.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one process the end-to-end tests start inside each test network namespace (run with
 * {@code ip netns exec NS java -cp test-classes dev.kubeproxy.e2e.EchoMain ...}).
 *
 * <p>It is both a backend and a client: it serves TCP and UDP echo ports that answer with this
 * process's name and the source address they saw, and it reads probe commands on stdin, one per
 * line, answering each with exactly one line on stdout:
 *
 * <pre>
 *   tcp HOST PORT TIMEOUT_MS              -> ok NAME SEEN_SOURCE | refused | timeout | unreachable | blocked | error ...
 *   udp HOST PORT TIMEOUT_MS [LOCAL_PORT] -> same
 *   http URL TIMEOUT_MS                   -> http STATUS BODY_ON_ONE_LINE | refused | timeout | error ...
 * </pre>
 *
 * It stops by itself when stdin closes (the test JVM went away) or after --lifetime-seconds.
 * Plain JDK only, so it runs on any machine with the JDK the build uses.
 */
public final class EchoMain {
  private final String name;

  private EchoMain(String name) {
    this.name = name;
  }

  public static void main(String[] args) throws Exception {
    String name = "echo";
    List<Integer> tcpPorts = new ArrayList<>();
    List<Integer> udpPorts = new ArrayList<>();
    long lifetimeSeconds = 900;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--name" -> name = args[++i];
        case "--tcp" -> tcpPorts.addAll(ports(args[++i]));
        case "--udp" -> udpPorts.addAll(ports(args[++i]));
        case "--lifetime-seconds" -> lifetimeSeconds = Long.parseLong(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; usage: --name NAME [--tcp P,P] [--udp P,P] [--lifetime-seconds N]");
      }
    }
    EchoMain echo = new EchoMain(name);
    startLifetimeLimit(lifetimeSeconds);
    for (int port : tcpPorts) {
      echo.serveTcp(port);
    }
    for (int port : udpPorts) {
      echo.serveUdp(port);
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    out.println("ready " + name);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      out.println(oneLine(echo.probe(line.trim().split("\\s+"))));
    }
    System.exit(0);
  }

  private static List<Integer> ports(String csv) {
    List<Integer> ports = new ArrayList<>();
    for (String p : csv.split(",")) {
      if (!p.isBlank()) {
        ports.add(Integer.parseInt(p.trim()));
      }
    }
    return ports;
  }

  private static void startLifetimeLimit(long seconds) {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(seconds * 1000);
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("lifetime of " + seconds + "s reached, exiting");
      System.exit(0);
    }, "lifetime");
    t.setDaemon(true);
    t.start();
  }

  // ---- servers ----

  /** Binds the IPv6 wildcard (dual-stack) when IPv6 exists, else the IPv4 wildcard. */
  private static InetSocketAddress wildcard(int port) throws IOException {
    try {
      return new InetSocketAddress(InetAddress.getByName("::"), port);
    } catch (IOException e) {
      return new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port);
    }
  }

  private void serveTcp(int port) throws IOException {
    ServerSocket server = new ServerSocket();
    server.setReuseAddress(true);
    try {
      server.bind(wildcard(port), 128);
    } catch (IOException e) {
      server.close();
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port), 128);
    }
    ServerSocket bound = server;
    daemon("tcp-" + port, () -> {
      while (true) {
        try (Socket s = bound.accept()) {
          s.setSoTimeout(2000);
          OutputStream o = s.getOutputStream();
          o.write((name + " " + s.getInetAddress().getHostAddress() + "\n").getBytes(StandardCharsets.UTF_8));
          o.flush();
        } catch (IOException e) {
          System.err.println("tcp " + port + ": " + e);
        }
      }
    });
  }

  private void serveUdp(int port) throws IOException {
    DatagramSocket socket;
    try {
      socket = new DatagramSocket(wildcard(port));
    } catch (IOException e) {
      socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), port));
    }
    DatagramSocket bound = socket;
    daemon("udp-" + port, () -> {
      byte[] buf = new byte[512];
      while (true) {
        try {
          DatagramPacket p = new DatagramPacket(buf, buf.length);
          bound.receive(p);
          byte[] answer = (name + " " + p.getAddress().getHostAddress()).getBytes(StandardCharsets.UTF_8);
          bound.send(new DatagramPacket(answer, answer.length, p.getSocketAddress()));
        } catch (IOException e) {
          System.err.println("udp " + port + ": " + e);
        }
      }
    });
  }

  private static void daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
  }

  // ---- probes ----

  private String probe(String[] cmd) {
    try {
      return switch (cmd[0]) {
        case "tcp" -> tcp(cmd[1], Integer.parseInt(cmd[2]), Integer.parseInt(cmd[3]));
        case "udp" -> udp(cmd[1], Integer.parseInt(cmd[2]), Integer.parseInt(cmd[3]),
            cmd.length > 4 ? Integer.parseInt(cmd[4]) : 0);
        case "http" -> http(cmd[1], Integer.parseInt(cmd[2]));
        default -> "error unknown command " + cmd[0];
      };
    } catch (RuntimeException e) {
      return "error " + e;
    }
  }

  private static String tcp(String host, int port, int timeoutMs) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getByName(host), port), timeoutMs);
      s.setSoTimeout(timeoutMs);
      String answer = readLine(s.getInputStream());
      return answer == null ? "error closed without answer" : "ok " + answer;
    } catch (SocketTimeoutException e) {
      return "timeout";
    } catch (IOException e) {
      return classify(e);
    }
  }

  private static String udp(String host, int port, int timeoutMs, int localPort) {
    try (DatagramSocket s = new DatagramSocket(null)) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(localPort));
      s.setSoTimeout(timeoutMs);
      s.connect(new InetSocketAddress(InetAddress.getByName(host), port));
      byte[] ping = "ping".getBytes(StandardCharsets.UTF_8);
      s.send(new DatagramPacket(ping, ping.length));
      byte[] buf = new byte[512];
      DatagramPacket p = new DatagramPacket(buf, buf.length);
      s.receive(p);
      return "ok " + new String(buf, 0, p.getLength(), StandardCharsets.UTF_8);
    } catch (SocketTimeoutException e) {
      return "timeout";
    } catch (PortUnreachableException e) {
      return "refused";
    } catch (IOException e) {
      return classify(e);
    }
  }

  private static String http(String url, int timeoutMs) {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
      c.setConnectTimeout(timeoutMs);
      c.setReadTimeout(timeoutMs);
      int status = c.getResponseCode();
      InputStream body = status >= 400 ? c.getErrorStream() : c.getInputStream();
      String text = body == null ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8);
      c.disconnect();
      return "http " + status + " " + text;
    } catch (SocketTimeoutException e) {
      return "timeout";
    } catch (IOException e) {
      return classify(e);
    }
  }

  private static String classify(IOException e) {
    if (e instanceof ConnectException && String.valueOf(e.getMessage()).contains("refused")) {
      return "refused";
    }
    if (String.valueOf(e.getMessage()).contains("Operation not permitted")) {
      return "blocked"; // EPERM: this host's own netfilter dropped or rejected the packet we sent
    }
    if (e instanceof NoRouteToHostException) {
      return "unreachable";
    }
    return "error " + e;
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      sb.append((char) c);
    }
    return c < 0 && sb.length() == 0 ? null : sb.toString();
  }

  private static String oneLine(String s) {
    return s.replace('\r', ' ').replace('\n', ' ').trim();
  }
}
