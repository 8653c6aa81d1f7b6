/**
 * The KubeProxyConfiguration: what the agent is configured with, and nothing about how it runs.
 *
 * <p>It owns:
 * <ul>
 *   <li>the v1alpha1 schema, declared once: {@link dev.kubeproxy.config.KubeProxyConfiguration}'s
 *       fields and Jackson annotations, bound by {@link dev.kubeproxy.config.ConfigSchema} with Go's
 *       types and rules. The file's decoding, --write-config-to's YAML, the flags' fields and
 *       defaults all go through it;</li>
 *   <li>reading the --config file through vertx-config, once at the agent's start, by {@link
 *       dev.kubeproxy.runtime.ConfigVerticle} (the first verticle deployed): {@link dev.kubeproxy.config.ConfigFileLoader}
 *       (the file's bytes, size-bounded by {@link dev.kubeproxy.config.ConfigFileReader}, in a
 *       ConfigRetriever's {@link dev.kubeproxy.config.ConfigContentStore} with vertx-config-yaml's
 *       {@code yaml} format) and decoding as upstream does: {@link dev.kubeproxy.config.ConfigDocument}
 *       reads the same bytes as go-yaml or encoding/json with positions and duplicate keys, for the
 *       errors and where SnakeYAML's YAML 1.1 values differ from go-yaml's; {@link
 *       dev.kubeproxy.config.ConfigCodec} adds strict decoding with the lenient result, and {@link
 *       dev.kubeproxy.config.ConfigValueOverlay} merges the retriever's values into that reading;</li>
 *   <li>v1alpha1 defaulting ({@link dev.kubeproxy.config.ConfigDefaults}), validation ({@link
 *       dev.kubeproxy.config.ConfigValidation}), feature gates ({@link dev.kubeproxy.config.FeatureGates})
 *       and the /configz view, the versioned type ({@link dev.kubeproxy.config.ConfigzJson});</li>
 *   <li>the resolved values the other packages take instead of raw fields: the mode ({@link
 *       dev.kubeproxy.config.ProxyMode}) and its sync timing ({@link dev.kubeproxy.config.SyncSettings});</li>
 *   <li>the restart on a change of the file ({@link dev.kubeproxy.runtime.ConfigVerticle} with {@link
 *       dev.kubeproxy.config.ConfigFileWatcher}, started before the first read).</li>
 * </ul>
 *
 * <p>It may call {@code dev.kubeproxy.gotext}, {@code dev.kubeproxy.net} (address parsing),
 * Vert.x, vertx-config and vertx-config-yaml, Jackson and SnakeYAML; nothing else of the agent. The
 * verticle that reads and watches the file is {@code dev.kubeproxy.runtime.ConfigVerticle}; the
 * command line ({@code dev.kubeproxy.cli}), the runtime and the agent ({@code AgentVerticle}) call
 * this package.
 */
package dev.kubeproxy.config;
