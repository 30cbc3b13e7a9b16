/* A pre-pass over protobuf wire data before protobuf-c unpacks it: protobuf-c recurses once
 * per nested message with no depth limit, so a small hostile file of deeply nested graphs
 * could exhaust the stack. This walk follows the message descriptors, bounds the depth and
 * checks every length, iteratively within one message and recursively (bounded) across. */
#include "onnx_internal.h"

static int read_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*pos >= len)
            return -1;
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

static tosac_code check_msg(const uint8_t *p, size_t len, const ProtobufCMessageDescriptor *desc,
                            int depth, tosac_error *err)
{
    if (depth > ONNX_MAX_NESTING)
        return tosac_fail(err, TOSAC_ERR_INPUT,
                          "protobuf messages nested more than %d deep (%s)", ONNX_MAX_NESTING,
                          desc->short_name);
    size_t pos = 0;
    while (pos < len) {
        uint64_t key, v;
        if (read_varint(p, len, &pos, &key))
            return tosac_fail(err, TOSAC_ERR_INPUT, "truncated protobuf field key in %s",
                              desc->short_name);
        uint64_t field = key >> 3;
        if (field == 0 || field > 536870911u)
            return tosac_fail(err, TOSAC_ERR_INPUT, "invalid protobuf field number in %s",
                              desc->short_name);
        switch (key & 7) {
        case 0:
            if (read_varint(p, len, &pos, &v))
                return tosac_fail(err, TOSAC_ERR_INPUT, "truncated varint in %s field %llu",
                                  desc->short_name, (unsigned long long)field);
            break;
        case 1:
        case 5: {
            size_t w = (key & 7) == 1 ? 8 : 4;
            if (len - pos < w)
                return tosac_fail(err, TOSAC_ERR_INPUT, "truncated fixed field in %s",
                                  desc->short_name);
            pos += w;
            break;
        }
        case 2: {
            if (read_varint(p, len, &pos, &v) || v > len - pos)
                return tosac_fail(err, TOSAC_ERR_INPUT,
                                  "truncated length-delimited field %llu in %s",
                                  (unsigned long long)field, desc->short_name);
            const ProtobufCFieldDescriptor *f =
                protobuf_c_message_descriptor_get_field(desc, (unsigned)field);
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
                check_msg(p + pos, (size_t)v, f->descriptor, depth + 1, err))
                return err ? err->code : TOSAC_ERR_INPUT;
            pos += (size_t)v;
            break;
        }
        default:
            return tosac_fail(err, TOSAC_ERR_INPUT, "unsupported protobuf wire type %d in %s",
                              (int)(key & 7), desc->short_name);
        }
    }
    return TOSAC_OK;
}

tosac_code onnx_wire_check(const void *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                           tosac_error *err)
{
    if (!buf && len)
        return tosac_fail(err, TOSAC_ERR_INPUT, "no data");
    return check_msg(buf, len, desc, 0, err);
}
