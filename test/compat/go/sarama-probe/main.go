// The sarama compat probe (test/compat/sarama.test.ts), built in GOPATH mode against
// Debian's golang-github-shopify-sarama-dev (1.22): produces 5 records with
// protocol 0.11 (Produce v3, magic 2), reads the end and start offsets the way a
// sarama-era lag monitor does (the default 0.8.2 protocol level: ListOffsets v0),
// consumes the partition, then consumes it again in a consumer group. Prints one
// line per step; "OK" last, or "FAIL <step>: <error>" and exit 1.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/Shopify/sarama"
)

type handler struct{ got chan string }

func (h handler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h handler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		h.got <- string(m.Value)
		s.MarkMessage(m, "")
	}
	return nil
}

func fail(step string, err error) {
	fmt.Printf("FAIL %s: %v\n", step, err)
	os.Exit(1)
}

func main() {
	broker, topic, group := os.Args[1], os.Args[2], os.Args[3]
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_11_0_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	producer, err := sarama.NewSyncProducer([]string{broker}, cfg)
	if err != nil {
		fail("producer", err)
	}
	for i := 0; i < 5; i++ {
		if _, _, err := producer.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(fmt.Sprintf("m%d", i))}); err != nil {
			fail("produce", err)
		}
	}
	producer.Close()
	fmt.Println("produced 5")

	// A sarama-era lag monitor: the default (0.8.2) protocol level, so ListOffsets v0.
	old := sarama.NewConfig()
	oldClient, err := sarama.NewClient([]string{broker}, old)
	if err != nil {
		fail("old client", err)
	}
	newest, err := oldClient.GetOffset(topic, 0, sarama.OffsetNewest)
	if err != nil {
		fail("ListOffsets v0 newest", err)
	}
	oldest, err := oldClient.GetOffset(topic, 0, sarama.OffsetOldest)
	if err != nil {
		fail("ListOffsets v0 oldest", err)
	}
	oldClient.Close()
	fmt.Printf("listoffsets-v0 newest=%d oldest=%d\n", newest, oldest)

	consumer, err := sarama.NewConsumer([]string{broker}, cfg)
	if err != nil {
		fail("consumer", err)
	}
	pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		fail("consume partition", err)
	}
	for i := 0; i < 5; i++ {
		select {
		case m := <-pc.Messages():
			fmt.Printf("consumed %s@%d\n", string(m.Value), m.Offset)
		case <-time.After(15 * time.Second):
			fail("consume", fmt.Errorf("timeout"))
		}
	}
	pc.Close()
	consumer.Close()

	cg, err := sarama.NewConsumerGroup([]string{broker}, group, cfg)
	if err != nil {
		fail("group", err)
	}
	h := handler{got: make(chan string, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if err := cg.Consume(ctx, []string{topic}, h); err != nil && ctx.Err() == nil {
				fmt.Printf("group consume error: %v\n", err)
				time.Sleep(200 * time.Millisecond)
			}
		}
	}()
	for i := 0; i < 5; i++ {
		select {
		case v := <-h.got:
			fmt.Printf("group got %s\n", v)
		case <-time.After(30 * time.Second):
			fail("group", fmt.Errorf("timeout"))
		}
	}
	cancel()
	cg.Close()
	fmt.Println("OK")
}
