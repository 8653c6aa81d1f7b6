package dev.kubeproxy.runtime;

import dev.kubeproxy.messages.DebugServicesQuery;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.InvalidObjects;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.logging.Log;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Answers {@link EventBusAddresses#DEBUG_SERVICES} with the proxier's {@link ProxierSnapshot}: each
 * family's last synced state and syncs, the invalid objects left out, and for one queried Service
 * what its backend reads back from the kernel (on a worker, not ordered behind the syncs).
 */
final class DebugServicesResponder {
  private final Vertx vertx;
  private final AgentOptions options;
  private final NodeInfo node;
  private final Supplier<List<FamilyProxier>> families;
  private final BooleanSupplier initialized;
  private final InvalidObjects invalid;
  /** Per family, the settings its backend was built with (computed as Proxiers.create does, at the first request). */
  private Map<IpFamily, ProxierSettings> settings;

  DebugServicesResponder(Vertx vertx, AgentOptions options, NodeInfo node, Supplier<List<FamilyProxier>> families,
      BooleanSupplier initialized, Clock clock) {
    this.vertx = vertx;
    this.invalid = new InvalidObjects(clock);
    this.options = options;
    this.node = node;
    this.families = families;
    this.initialized = initialized;
  }

  /**
   * Registers the consumers: the query, and the (published) events, whose FailedValidation ones
   * name invalid objects. Services and EndpointSlices come from the proxier's own handlers
   * ({@link #invalidObjects()}): a second consumer there would take point-to-point sends away from it.
   */
  List<MessageConsumer<?>> register() {
    List<MessageConsumer<?>> consumers = new ArrayList<>();
    consumers.add(vertx.eventBus().consumer(EventBusAddresses.DEBUG_SERVICES, this::answer));
    consumers.add(vertx.eventBus().consumer(EventBusAddresses.EVENTS, msg -> invalid.onEvent(msg.body())));
    return consumers;
  }

  /** Told of every Service and EndpointSlice event: a delivered or deleted object is no longer invalid. */
  InvalidObjects invalidObjects() {
    return invalid;
  }

  private void answer(Message<Object> msg) {
    NamespacedName service = msg.body() instanceof DebugServicesQuery q ? q.service() : null;
    boolean wantRuleset = msg.body() instanceof DebugServicesQuery q && q.ruleset();
    List<FamilyProxier> current = families.get();
    Map<IpFamily, ProxierSettings> familySettings = settings();
    vertx.executeBlocking(() -> {
      List<FamilySnapshot> out = new ArrayList<>();
      for (FamilyProxier f : current) {
        ProxyState state = f.lastState();
        Map<ServicePortName, ProgrammedRules> programmed = new HashMap<>();
        if (service != null && state != null) {
          for (ServicePort port : state.services().values()) {
            if (port.name().service().equals(service)) {
              f.backend().programmedRules(port, state.endpointsOf(port.name()))
                  .ifPresent(rules -> programmed.put(port.name(), rules));
            }
          }
        }
        ProgrammedRuleset ruleset = !wantRuleset ? null : f.backend().programmedRuleset().orElse(
            ProgrammedRuleset.unavailable(options.config().proxyMode() + " mode",
                "no tracer reads this mode's rules; the path shown is the model's only"));
        out.add(new FamilySnapshot(familySettings.get(f.family()), state, f.syncLog(), Map.copyOf(programmed),
            ruleset));
      }
      return out;
    }, false).onComplete(ar -> {
      if (ar.failed()) {
        Log.error("Could not build the /debug/services snapshot", ar.cause());
        msg.fail(500, String.valueOf(ar.cause().getMessage()));
        return;
      }
      msg.reply(new ProxierSnapshot(options.config().proxyMode(), options.dryRun(), initialized.getAsBoolean(),
          ar.result(), invalid.all()));
    });
  }

  private Map<IpFamily, ProxierSettings> settings() {
    if (settings == null) {
      Map<IpFamily, LocalTrafficDetector> detectors =
          Proxiers.localDetectors(options.config(), node, Proxiers.primaryFamily(node), notice -> { });
      Map<IpFamily, ProxierSettings> s = new HashMap<>();
      for (IpFamily f : IpFamily.values()) {
        s.put(f, Proxiers.settings(options, node, f, detectors.get(f)));
      }
      settings = Map.copyOf(s);
    }
    return settings;
  }
}
