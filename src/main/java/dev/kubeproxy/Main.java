package dev.kubeproxy;

public final class Main {
  public static void main(String[] args) {
    System.out.println("kube-proxy");
  }
}
