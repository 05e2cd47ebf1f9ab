// A small repository in several languages, for `locate`: each stack trace and issue text in
// test/unit/locate.test.ts has its answer here, and decoys that share its words.

import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './store.ts';

export const LOCATE_REPO: Record<string, string> = {
  'app/payments/gateway.py': `from app.payments.models import Invoice


class PaymentGateway:
    def __init__(self, client):
        self.client = client

    def charge(self, invoice: Invoice, amount: int) -> str:
        if amount <= 0:
            raise ValueError("amount must be positive")
        return self.client.post("/charges", {"invoice": invoice.number, "amount": amount})

    def refund(self, charge_id: str) -> None:
        self.client.post("/refunds", {"charge": charge_id})
`,
  'app/payments/models.py': `class Invoice:
    def __init__(self, number, lines):
        self.number = number
        self.lines = lines

    def total(self):
        return sum(line.amount for line in self.lines)
`,
  'app/cli.py': `from app.payments.gateway import PaymentGateway


def main(argv):
    gateway = PaymentGateway(client=None)
    invoice = load_invoice(argv[1])
    return gateway.charge(invoice, invoice.total())


def load_invoice(path):
    with open(path) as f:
        return parse_invoice(f.read())
`,
  'app/config.py': `from app.errors import ConfigError


class Settings:
    def __init__(self, values):
        self.values = values

    def load(self, section, key):
        if key not in self.values.get(section, {}):
            raise ConfigError(f"unknown setting {key!r} in section {section!r}")
        return self.values[section][key]
`,
  'app/errors.py': `class ConfigError(Exception):
    """A setting the configuration file does not define."""
`,
  'app/net/retry.py': `import time


def stream_with_retry(connection, attempts=3):
    for attempt in range(attempts):
        try:
            return connection.stream()
        except OSError:
            time.sleep(2 ** attempt)
    raise ConnectionError("connection reset by peer while streaming")
`,
  'app/store/snapshot.py': `import os


class SnapshotStore:
    def load(self, path):
        """A truncated snapshot file is moved aside and rebuilt."""
        try:
            return self.read(path)
        except EOFError:
            os.replace(path, path + ".broken")
            return self.rebuild(path)
`,
  'tests/test_snapshot.py': `from app.store.snapshot import SnapshotStore


def test_truncated_snapshot_is_moved_aside_and_rebuilt(tmp_path):
    # A truncated snapshot file is moved aside, and the snapshot is rebuilt from the journal.
    snapshot = tmp_path / "snapshot.bin"
    snapshot.write_bytes(b"trunc")
    SnapshotStore().load(snapshot)
    assert (tmp_path / "snapshot.bin.broken").exists()
`,
  '.github/ISSUE_TEMPLATE/bug_report.md': `---
name: Bug report
about: Report something that is broken
---

**Describe the bug**
A clear and concise description of what the bug is.

**Steps to reproduce**
Steps to reproduce the behavior.

**Expected behavior**
What you expected to happen instead.
`,
  'tests/test_gateway.py': `from app.payments.gateway import PaymentGateway


def test_charge_needs_positive_amount():
    gateway = PaymentGateway(client=None)
    assert gateway is not None
`,
  'web/src/server.js': `import { Router } from './router.js';

const router = new Router();

export function handleRequest(req, res) {
  const body = parseBody(req.rawBody);
  return router.dispatch(req.url, body, res);
}

function parseBody(raw) {
  if (typeof raw !== 'string') {
    throw new TypeError('Cannot parse request body: expected a string');
  }
  return JSON.parse(raw);
}
`,
  'web/src/router.js': `export class Router {
  constructor() {
    this.routes = new Map();
  }

  dispatch(url, body, res) {
    const handler = this.routes.get(url);
    if (!handler) {
      res.statusCode = 404;
      return res.end('not found');
    }
    return handler(body, res);
  }
}
`,
  'service/src/main/java/com/acme/orders/OrderService.java': `package com.acme.orders;

public class OrderService {
    private final OrderRepository repository;

    public OrderService(OrderRepository repository) {
        this.repository = repository;
    }

    public Order placeOrder(Cart cart) {
        Order order = new Order(cart.customer());
        for (Item item : cart.items()) {
            order.add(item.sku(), item.quantity());
        }
        return repository.save(order);
    }
}
`,
  'service/src/main/java/com/acme/orders/OrderRepository.java': `package com.acme.orders;

public class OrderRepository {
    private final Database database;

    public OrderRepository(Database database) {
        this.database = database;
    }

    public Order save(Order order) {
        return database.insert("orders", order.toRow());
    }
}
`,
  'shop/app/Http/Controllers/OrderController.php': `<?php

namespace App\\Http\\Controllers;

use App\\Models\\Order;
use App\\Services\\InvoiceService;

class OrderController extends Controller
{
    public function __construct(private InvoiceService $invoices)
    {
    }

    public function show(int $id)
    {
        $order = Order::find($id);

        return view('orders.show', ['order' => $order->load('lines')]);
    }

    public function invoice(int $id)
    {
        return $this->invoices->forOrder(Order::findOrFail($id));
    }
}
`,
  'shop/app/Services/InvoiceService.php': `<?php

namespace App\\Services;

use App\\Models\\Order;

class InvoiceService
{
    public function forOrder(Order $order)
    {
        return $order->load('lines')->invoice;
    }
}
`,
  'worker/queue/consumer.go': `package queue

type Consumer struct {
	messages chan Message
	closed   bool
}

func (c *Consumer) Poll() Message {
	if c.closed {
		panic("queue closed while polling")
	}
	return <-c.messages
}

func (c *Consumer) Close() {
	c.closed = true
}
`,
  'worker/main.go': `package main

import "example.com/worker/queue"

func main() {
	consumer := queue.NewConsumer()
	for {
		handle(consumer.Poll())
	}
}
`,
  'engine/src/cache.rs': `pub struct Cache {
    entries: Vec<Entry>,
    capacity: usize,
}

impl Cache {
    pub fn evict(&mut self) -> Entry {
        self.entries.pop().expect("cache is empty, nothing to evict")
    }
}
`,
  'docs/payments.md': `# Payments

The gateway charges an invoice and refunds a charge. Amounts are in cents; a charge of zero is refused.
`,
};

/** Writes the repository into a new temporary folder and returns it. */
export function writeLocateRepo(): string {
  const root = tempDir('fused-locate-');
  for (const [relPath, text] of Object.entries(LOCATE_REPO)) {
    fs.mkdirSync(path.dirname(path.join(root, relPath)), { recursive: true });
    fs.writeFileSync(path.join(root, relPath), text);
  }
  return root;
}
