package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.FormArena;
import dev.kubeproxy.backend.nftables.objects.TableReader;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class DesiredElementsTest {
  /** Forms that are the key text, and the key text with the comment: what a test can read at a glance. */
  private static final TableReader TEXT_FORMS = new FormlessReader() {
    @Override
    public void keyForm(Element e, FormArena out) {
      out.append(e.keyText());
    }

    @Override
    public void elementForm(Element e, FormArena out) {
      out.append(e.comment() == null ? e.keyText() : e.keyText() + " # " + e.comment());
    }

    @Override
    public <V extends TableVisitor> java.util.Optional<V> read(java.util.function.Supplier<V> visitors) {
      throw new UnsupportedOperationException();
    }
  };

  private static DesiredElements desired(List<Element> elements) {
    return new DesiredElements().fill(elements::forEach, TEXT_FORMS);
  }

  /** The keys of the desired elements that {@link DesiredElements#missing()} names. */
  private static List<String> missingKeys(DesiredElements desired, List<Element> elements) {
    return desired.missing().stream().mapToObj(i -> elements.get(i).keyText()).toList();
  }

  /** Asks as a reader does: the key form and the form one after the other, amid other chars. */
  private static boolean holds(DesiredElements desired, String key, String form) {
    char[] forms = ("<<" + key + form + ">>").toCharArray();
    return desired.holds(forms, 2, 2 + key.length(), 2 + key.length() + form.length());
  }

  private static Element element(String key, String comment) {
    return Element.ofMap("m", List.of(key), null, comment);
  }

  @Test
  void kernelElementsAsDesiredAreSettledTheOthersMissing() {
    List<Element> elements = List.of(element("a", null), element("b", "x"), element("c", null));
    DesiredElements desired = desired(elements);

    assertTrue(holds(desired, "a", "a"));
    assertFalse(holds(desired, "b", "b # y"), "same key, another comment: not as desired");
    assertFalse(holds(desired, "z", "z"), "a key nobody wants");

    assertEquals(List.of("b", "c"), missingKeys(desired, elements));
  }

  @Test
  void aKeyIsSettledOnceAndARepeatedKeyCountsOnce() {
    List<Element> elements = List.of(element("a", null), element("a", "later"), element("b", null));
    DesiredElements desired = desired(elements);

    assertFalse(holds(desired, "a", "a # later"), "the first element of a key is the one wanted");
    assertEquals(List.of("a", "b"), missingKeys(desired, elements));
    assertTrue(holds(desired, "a", "a"));
    assertFalse(holds(desired, "a", "a"), "the kernel holds one element per key");
    assertEquals(List.of("b"), missingKeys(desired, elements));
  }

  @Test
  void keysWithTheSameHashAreToldApart() {
    assertEquals("Aa".hashCode(), "BB".hashCode());
    List<Element> elements = List.of(element("Aa", null), element("BB", null));
    DesiredElements desired = desired(elements);

    assertFalse(holds(desired, "AaBB", "AaBB"));
    assertTrue(holds(desired, "BB", "BB"));
    assertEquals(List.of("Aa"), missingKeys(desired, elements));
  }

  @Test
  void manyKeysAreAllFound() {
    List<Element> elements = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      elements.add(element("10.0." + i / 256 + "." + i % 256, null));
    }
    DesiredElements desired = desired(elements);

    for (int i = 0; i < 5000; i += 2) {
      String key = "10.0." + i / 256 + "." + i % 256;
      assertTrue(holds(desired, key, key), key);
    }
    assertEquals(2500, desired.missing().cardinality());
    assertTrue(desired(List.of()).missing().isEmpty());
  }

  @Test
  void aRefillForgetsTheSetBefore() {
    DesiredElements desired = new DesiredElements();
    List<Element> big = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      big.add(element("k" + i, i % 2 == 0 ? null : "c" + i));
    }
    desired.fill(big::forEach, TEXT_FORMS);
    assertTrue(holds(desired, "k1", "k1 # c1"));

    List<Element> small = List.of(element("k2", null), element("s", "x"));
    desired.fill(small::forEach, TEXT_FORMS);

    assertFalse(holds(desired, "k1", "k1 # c1"), "an element of the set before");
    assertFalse(holds(desired, "k2", "k2 # c2"));
    assertTrue(holds(desired, "s", "s # x"));
    assertEquals(List.of("k2"), missingKeys(desired, small));
  }

  @Test
  void aRefillOfTheSameSizeFindsItsOwnElements() {
    DesiredElements desired = new DesiredElements();
    desired.fill(List.of(element("x", null), element("y", null))::forEach, TEXT_FORMS);

    List<Element> next = List.of(element("x", null), element("w", null));
    desired.fill(next::forEach, TEXT_FORMS);

    assertTrue(holds(desired, "x", "x"), "not taken for a repeat of the set before's x");
    assertTrue(holds(desired, "w", "w"));
    assertFalse(holds(desired, "y", "y"));
    assertTrue(missingKeys(desired, next).isEmpty());
  }
}
