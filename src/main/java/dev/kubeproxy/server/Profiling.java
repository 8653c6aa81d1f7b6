package dev.kubeproxy.server;

import dev.kubeproxy.logging.Log;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.ObjectName;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * Java's counterparts of upstream's /debug/pprof endpoints, served with enableProfiling:
 * a thread dump (pprof's goroutine profile), a class histogram of the heap (pprof's heap
 * profile), a Java Flight Recorder recording of N seconds (pprof's CPU profile, ?seconds=N,
 * default 30) and the command line. Everything runs off the event loop. A recording whose
 * client disconnects before it is sent is stopped and discarded at once.
 */
final class Profiling {
  static final String PREFIX = "/debug/pprof/";

  private static final Map<String, String> PROFILES = Collections.unmodifiableSortedMap(new TreeMap<>(Map.of(
      "goroutine", "Stack traces of all threads (a Java thread dump)",
      "threads", "Stack traces of all threads (a Java thread dump)",
      "heap", "Live objects per class (a JVM class histogram; forces a full GC)",
      "profile", "A Java Flight Recorder recording; ?seconds=N (default 30). Open it with JDK Mission Control or 'jfr print'",
      "cmdline", "The running program's command line")));

  private final Vertx vertx;

  Profiling(Vertx vertx) {
    this.vertx = vertx;
  }

  void install(Router router) {
    MetricsServerVerticle.exact(router, "/debug/pprof").handler(ctx -> ctx.response()
        .setStatusCode(302).putHeader("Location", PREFIX).putHeader("Content-Type", "text/html; charset=utf-8")
        .end("<a href=\"" + PREFIX + "\">Found</a>.\n\n"));
    router.routeWithRegex("^/debug/pprof/.*").handler(this::handle);
  }

  private void handle(RoutingContext ctx) {
    String name = ctx.normalizedPath().substring(PREFIX.length());
    switch (name) {
      case "" -> index(ctx);
      case "goroutine", "threads" -> blockingText(ctx, () -> diagnosticCommand("threadPrint"));
      case "heap" -> blockingText(ctx, () -> diagnosticCommand("gcClassHistogram"));
      case "cmdline" -> text(ctx, 200, String.join("\u0000", commandLine()));
      case "profile" -> flightRecording(ctx);
      default -> text(ctx, 404, "Unknown profile\n");
    }
  }

  private void index(RoutingContext ctx) {
    StringBuilder html = new StringBuilder("<html>\n<head>\n<title>/debug/pprof/</title>\n</head>\n<body>\n")
        .append("<p>Java runtime profiles of kube-proxy:</p>\n<table>\n");
    PROFILES.forEach((name, what) -> html.append("<tr><td><a href=\"").append(name).append("\">").append(name)
        .append("</a></td><td>").append(what).append("</td></tr>\n"));
    html.append("</table>\n</body>\n</html>\n");
    ctx.response().putHeader("Content-Type", "text/html; charset=utf-8").end(html.toString());
  }

  private void flightRecording(RoutingContext ctx) {
    long seconds;
    try {
      seconds = Long.parseLong(ctx.request().getParam("seconds", "30"));
    } catch (NumberFormatException e) {
      seconds = 30;
    }
    if (seconds <= 0) {
      seconds = 30; // pprof's rule for a missing or bad value
    }
    long duration = seconds;
    // Starting and dumping a recording read and write files: both off the event loop.
    vertx.executeBlocking(() -> {
      Recording r = new Recording(Configuration.getConfiguration("profile"));
      r.setName("kube-proxy /debug/pprof/profile");
      r.start();
      return r;
    }).onComplete(started -> {
      if (started.failed()) {
        text(ctx, 500, "Could not enable profiling: " + started.cause().getMessage() + "\n");
        return;
      }
      Recording recording = started.result();
      // One of two ends, whichever comes first: the time is up (dump and send), or the client went
      // away (stop and discard: nobody would read the recording, and it costs CPU and disk).
      java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
      long timer = vertx.setTimer(duration * 1000, id -> {
        if (done.compareAndSet(false, true)) {
          sendRecording(ctx, recording);
        }
      });
      Runnable clientGone = () -> {
        if (done.compareAndSet(false, true)) {
          vertx.cancelTimer(timer);
          Log.v(2).info("Profile client went away; flight recording stopped", "recording", recording.getId());
          vertx.executeBlocking(() -> {
            recording.close();
            return null;
          });
        }
      };
      ctx.response().closeHandler(v -> clientGone.run());
      if (ctx.response().closed()) {
        clientGone.run(); // gone while the recording was starting
      }
    });
  }

  /** Stops the recording, dumps it to a temporary file and sends that. */
  private void sendRecording(RoutingContext ctx, Recording recording) {
    vertx.<byte[]>executeBlocking(() -> {
      Path file = Files.createTempFile("kube-proxy-", ".jfr");
      try {
        recording.stop();
        recording.dump(file);
        return Files.readAllBytes(file);
      } finally {
        recording.close();
        Files.deleteIfExists(file);
      }
    }).onComplete(ar -> {
      if (ar.failed()) {
        text(ctx, 500, "Could not write the recording: " + ar.cause().getMessage() + "\n");
      } else {
        ctx.response().putHeader("Content-Type", "application/octet-stream")
            .putHeader("Content-Disposition", "attachment; filename=\"profile.jfr\"")
            .putHeader("X-Content-Type-Options", "nosniff")
            .end(io.vertx.core.buffer.Buffer.buffer(ar.result()));
      }
    });
  }

  private void blockingText(RoutingContext ctx, java.util.concurrent.Callable<String> work) {
    vertx.executeBlocking(work).onComplete(ar -> {
      if (ar.failed()) {
        text(ctx, 500, "Could not collect the profile: " + ar.cause().getMessage() + "\n");
      } else {
        text(ctx, 200, ar.result());
      }
    });
  }

  private static void text(RoutingContext ctx, int code, String body) {
    ctx.response().setStatusCode(code).putHeader("Content-Type", "text/plain; charset=utf-8")
        .putHeader("X-Content-Type-Options", "nosniff").end(body);
  }

  /** Runs a HotSpot diagnostic command (what jcmd runs) in this JVM. */
  static String diagnosticCommand(String operation) throws Exception {
    Object out = ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
        operation, new Object[] {new String[0]}, new String[] {String[].class.getName()});
    return String.valueOf(out);
  }

  private static List<String> commandLine() {
    ProcessHandle.Info info = ProcessHandle.current().info();
    List<String> argv = new java.util.ArrayList<>();
    argv.add(info.command().orElse("java"));
    info.arguments().ifPresent(args -> argv.addAll(List.of(args)));
    return argv;
  }
}
