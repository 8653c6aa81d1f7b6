/**
 * What the verticles say to each other: the event-bus addresses ({@link dev.kubeproxy.messages.EventBusAddresses}),
 * the local codecs, and every record sent (cluster events, event requests for the API, node facts,
 * health updates, Service health state, the /debug/services query and its snapshot). Part of the
 * model layer: it uses the model and nothing above it.
 */
package dev.kubeproxy.messages;
