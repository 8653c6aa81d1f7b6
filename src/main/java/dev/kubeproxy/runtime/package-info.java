/**
 * The running agent below its entry point: the configuration verticle (file load and watch), the
 * proxier verticle (upstream's metaproxier; its {@link dev.kubeproxy.runtime.ClusterEventRouter} sends each
 * cluster event to the families it concerns) with one {@link dev.kubeproxy.runtime.FamilyProxier} per IP
 * family (its model in {@link dev.kubeproxy.runtime.FamilyModel}, its reports through
 * {@link dev.kubeproxy.runtime.SyncReporter}), the sync runner, the backend factory ({@link dev.kubeproxy.runtime.Proxiers}), the host set-up
 * at start, and the {@link dev.kubeproxy.runtime.AgentContext} passed down.
 *
 * <p>Threads: {@link dev.kubeproxy.runtime.ProxierVerticle} is a worker verticle; its one context owns
 * every family's model and backend, so nothing here locks. May use every layer below it; the HTTP
 * servers and explain use it only through the event bus and its read-only snapshots.
 */
package dev.kubeproxy.runtime;
