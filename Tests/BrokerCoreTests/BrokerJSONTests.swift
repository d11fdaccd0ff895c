import BrokerCore
import GuardProtocol
import Testing

@Suite("What the broker carries, as exact JSON")
struct BrokerJSONTests {
    let time = "2026-12-02T13:00:00.000Z"

    @Test("A press: its seq, the key by direction, its event type, the time; keys sorted")
    func press() {
        let press = BrokerEvent(PressMessage(seq: 7, direction: .up, count: 1, sink: "speakers", time: time))
        #expect(press.payload == #"{"direction":"up","event_type":"press:up","seq":7,"time":"2026-12-02T13:00:00.000Z","type":"press"}"#)
    }

    @Test("A device's gesture: the key by the kernel's name, the gesture, the device's name and address")
    func gesture() {
        let message = GestureMessage(
            gesture: .holdStart, direction: nil, key: "KEY_ENTER", seq: 9, presses: 3, source: .input, sink: nil,
            device: "AB Shutter3", path: "/dev/input/event5", time: time
        )
        #expect(
            BrokerEvent(message, address: "aa:bb:cc:dd:ee:ff").payload
                == #"{"device":{"address":"aa:bb:cc:dd:ee:ff","name":"AB Shutter3"},"event_type":"hold_start:KEY_ENTER","gesture":"hold_start","key":"KEY_ENTER","seq":9,"time":"2026-12-02T13:00:00.000Z","type":"gesture"}"#
        )
    }

    @Test("The retained state: the socket's state and sink, the source, the devices present")
    func state() {
        let state = BrokerState(state: .guarding, sink: nil, source: .input, devices: ["AB Shutter3"])
        #expect(state.payload == #"{"devices":["AB Shutter3"],"source":"input","state":"guarding"}"#)
    }

    @Test("Topics live under the prefix; the node id is the client id with Home Assistant's characters only")
    func topics() {
        let topics = BrokerTopics(prefix: "volume-guard/pi.local", clientID: "volume-guard/pi.local")
        #expect(topics.nodeID == "volume-guard_pi_local")
        #expect(topics.availability == "volume-guard/pi.local/availability")
        #expect(topics.events == "volume-guard/pi.local/events")
        #expect(topics.homeAssistantStatus == "homeassistant/status")
    }
}

@Suite("Home Assistant's discovery configs")
struct DiscoveryDocumentsTests {
    let topics = BrokerTopics(prefix: "volume-guard/booth", clientID: "volume-guard/booth")
    let device =
        #"{"identifiers":["volume-guard_booth"],"manufacturer":"volume-guard","model":"volume-guard","name":"volume-guard on booth","sw_version":"1.2.0"}"#

    func documents(keys: [String], gestures: [GestureKind]) -> [BrokerDocument] {
        DiscoveryDocuments.documents(
            .init(topics: topics, hostName: "booth", version: "1.2.0", keys: keys, gestures: gestures)
        )
    }

    @Test("One event entity with every (gesture, key) as an event type, and one trigger per pair")
    func documents() {
        let documents = documents(keys: ["up", "KEY_ENTER"], gestures: [.tap, .holdStart])
        #expect(
            documents.map(\.topic) == [
                "homeassistant/event/volume-guard_booth/presses/config",
                "homeassistant/device_automation/volume-guard_booth/tap_up/config",
                "homeassistant/device_automation/volume-guard_booth/tap_KEY_ENTER/config",
                "homeassistant/device_automation/volume-guard_booth/hold_start_up/config",
                "homeassistant/device_automation/volume-guard_booth/hold_start_KEY_ENTER/config",
            ]
        )
        #expect(
            documents[0].payload
                == #"{"availability_topic":"volume-guard/booth/availability","device":"# + device
                + #","event_types":["press:up","press:KEY_ENTER","tap:up","tap:KEY_ENTER","hold_start:up","hold_start:KEY_ENTER"],"name":"Presses","payload_available":"online","payload_not_available":"offline","qos":1,"state_topic":"volume-guard/booth/events","unique_id":"volume-guard_booth_presses"}"#
        )
        #expect(
            documents[4].payload
                == #"{"automation_type":"trigger","device":"# + device
                + #","payload":"hold_start:KEY_ENTER","qos":1,"subtype":"KEY_ENTER","topic":"volume-guard/booth/events","type":"button_long_press","value_template":"{{ value_json.event_type }}"}"#
        )
    }

    @Test("A key whose presses make no gestures (the sink's mute) has its press as its trigger")
    func pressOnly() {
        let documents = DiscoveryDocuments.documents(
            .init(topics: topics, hostName: "booth", version: "1.2.0", keys: ["up", "mute"], gestures: [.tap], pressOnly: ["mute"]))
        #expect(
            documents.map(\.topic) == [
                "homeassistant/event/volume-guard_booth/presses/config",
                "homeassistant/device_automation/volume-guard_booth/tap_up/config",
                "homeassistant/device_automation/volume-guard_booth/press_mute/config",
            ])
        #expect(documents[0].payload.contains(#""event_types":["press:up","press:mute","tap:up"]"#))
        #expect(documents[2].payload.contains(#""payload":"press:mute","qos":1,"subtype":"mute""#))
        #expect(documents[2].payload.contains(#""type":"button_short_press""#))
    }

    @Test("Each gesture is one of Home Assistant's button trigger types, distinct per key")
    func triggerTypes() {
        let types = [GestureKind.tap, .double, .holdStart, .holdEnd].map(DiscoveryDocuments.triggerType)
        #expect(types == ["button_short_press", "button_double_press", "button_long_press", "button_long_release"])
    }

    @Test("After a reload, what is no longer configured is removed by an empty config; the rest is kept")
    func removals() {
        let old = documents(keys: ["up", "KEY_ENTER"], gestures: [.tap])
        let new = documents(keys: ["up"], gestures: [.tap])
        #expect(
            DiscoveryDocuments.removals(old: old, new: new) == [
                BrokerDocument(topic: "homeassistant/device_automation/volume-guard_booth/tap_KEY_ENTER/config", payload: "")
            ]
        )
    }

    @Test("A link given removals publishes them, retained, on connecting")
    func linkRemoves() {
        let removal = BrokerDocument(topic: "homeassistant/device_automation/volume-guard_booth/tap_KEY_ENTER/config", payload: "")
        var link = BrokerLink(.init(topics: topics, removals: [removal]))
        _ = link.handle(.start, at: .zero)
        #expect(
            link.handle(.connected(attempt: 1), at: .zero).contains(
                .publish(attempt: 1, .init(message: nil, topic: removal.topic, payload: "", retain: true))
            )
        )
    }
}
