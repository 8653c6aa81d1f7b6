/**
 * The KubeProxyConfiguration file: the v1alpha1 schema declared once ({@link
 * dev.kubeproxy.config.KubeProxyConfiguration}, its fields and Jackson annotations, bound by
 * {@link dev.kubeproxy.config.ConfigSchema} with Go's types and rules), the file read with a size
 * bound ({@link dev.kubeproxy.config.ConfigFileReader}) and parsed as upstream's decoders parse it
 * ({@link dev.kubeproxy.config.ConfigDocument}: go-yaml or encoding/json, with positions and
 * duplicate keys), strict decoding with the lenient result ({@link dev.kubeproxy.config.ConfigCodec}),
 * v1alpha1 defaulting ({@link dev.kubeproxy.config.ConfigDefaults}), validation ({@link
 * dev.kubeproxy.config.ConfigValidation}), feature gates, the /configz view of upstream's internal
 * type ({@link dev.kubeproxy.config.ConfigzJson}) and the restart on a change of the file ({@link
 * dev.kubeproxy.config.ConfigVerticle}, {@link dev.kubeproxy.config.ConfigFileWatcher}).
 *
 * <p>It may call {@code dev.kubeproxy.logging}, {@code dev.kubeproxy.platform} (address parsing) and
 * the agent's options and bus addresses; the message out is a reason on agent.fatal when the file
 * changes.
 */
package dev.kubeproxy.config;
