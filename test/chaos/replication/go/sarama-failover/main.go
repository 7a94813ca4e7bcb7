// sarama (Debian's golang-github-shopify-sarama-dev 1.22) across a partition
// leader's kill -9, for test/chaos/replication/clients-leader-kill.test.ts.
//
//	sarama-failover produce <bootstrap> <topic> <name> <count> <rate> <duration_s>
//	    acks=all (WaitForAll), retried for up to ~30 s, values "<name>|<seq>|" to partition 0, paced;
//	    prints "ack <seq> <offset>" per acknowledgement, "err <seq> <error>" per failure, then "done <sent>"
//	sarama-failover consume <bootstrap> <topic> <count> <timeout_s>
//	    partition 0 from the oldest offset until count records or the timeout;
//	    prints "rec <offset> <value>" per record, then "done"
//
// Every loop is bounded by its count and a deadline.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/Shopify/sarama"
)

func config() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V0_11_0_0
	cfg.Producer.Return.Successes = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Retry.Max = 300
	cfg.Producer.Retry.Backoff = 100 * time.Millisecond
	cfg.Producer.Timeout = 10 * time.Second
	cfg.Metadata.Retry.Max = 300
	cfg.Metadata.Retry.Backoff = 100 * time.Millisecond
	cfg.Metadata.RefreshFrequency = time.Second
	cfg.Net.DialTimeout = 2 * time.Second
	cfg.Net.ReadTimeout = 10 * time.Second
	cfg.Net.MaxOpenRequests = 1
	return cfg
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fmt.Printf("bad number %q\n", s)
		os.Exit(2)
	}
	return n
}

func produce(bootstrap, topic, name string, count, rate, durationS int) {
	p, err := sarama.NewSyncProducer([]string{bootstrap}, config())
	if err != nil {
		fmt.Printf("fatal producer: %v\n", err)
		os.Exit(1)
	}
	start := time.Now()
	sent := 0
	for seq := 0; seq < count; seq++ {
		due := start.Add(time.Duration(seq) * time.Second / time.Duration(rate))
		if due.Sub(start) > time.Duration(durationS)*time.Second {
			break
		}
		time.Sleep(time.Until(due))
		msg := &sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(fmt.Sprintf("%s|%d|", name, seq))}
		sent++
		if _, offset, err := p.SendMessage(msg); err != nil {
			fmt.Printf("err %d %v\n", seq, err)
		} else {
			fmt.Printf("ack %d %d\n", seq, offset)
		}
	}
	p.Close()
	fmt.Printf("done %d\n", sent)
}

func consume(bootstrap, topic string, count, timeoutS int) {
	c, err := sarama.NewConsumer([]string{bootstrap}, config())
	if err != nil {
		fmt.Printf("fatal consumer: %v\n", err)
		os.Exit(1)
	}
	pc, err := c.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		fmt.Printf("fatal partition consumer: %v\n", err)
		os.Exit(1)
	}
	deadline := time.After(time.Duration(timeoutS) * time.Second)
	for got := 0; got < count; {
		select {
		case m := <-pc.Messages():
			fmt.Printf("rec %d %s\n", m.Offset, string(m.Value))
			got++
		case <-deadline:
			got = count
		}
	}
	pc.Close()
	c.Close()
	fmt.Println("done")
}

func main() {
	if len(os.Args) >= 8 && os.Args[1] == "produce" {
		produce(os.Args[2], os.Args[3], os.Args[4], atoi(os.Args[5]), atoi(os.Args[6]), atoi(os.Args[7]))
	} else if len(os.Args) >= 6 && os.Args[1] == "consume" {
		consume(os.Args[2], os.Args[3], atoi(os.Args[4]), atoi(os.Args[5]))
	} else {
		fmt.Println("usage: sarama-failover produce <bootstrap> <topic> <name> <count> <rate> <duration_s> | consume <bootstrap> <topic> <count> <timeout_s>")
		os.Exit(2)
	}
}
