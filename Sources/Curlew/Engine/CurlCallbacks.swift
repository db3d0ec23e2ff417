import CCurlShims
import CTLSShims
import Foundation

/// libcurl's callbacks. `userdata` is always the unretained ``EasyHandle`` of the hop, whose
/// ``EasyHandle/transfer`` the curl loop keeps alive while the handle is in the multi handle;
/// all run on the curl thread. Header lines go to a C callback, which keeps them in the
/// handle's ``EasyHandle/headBuffer`` and calls ``headEnded`` once per head.
enum CurlCallbacks {
    // Each reaches the transfer without retaining it or the handle (see `EasyHandle.withTransfer`).
    static let write: curlew_data_callback = { buffer, size, count, userdata in
        guard let userdata else { return 0 }
        return EasyHandle.withTransfer(userdata, otherwise: 0) { handle, transfer in
            let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
            return transfer.context.handleBody(bytes, transfer: transfer, at: handle.clock.now)
        }
    }

    /// Called by the C header callback (`curlew_head_buffer_callback`, libcurl's
    /// `CURLOPT_HEADERFUNCTION`) once a head's lines, up to its blank line, are in the handle's
    /// ``EasyHandle/headBuffer``; 0 aborts the transfer.
    static let headEnded: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { userdata in
        guard let userdata else { return 0 }
        return EasyHandle.withTransfer(userdata, otherwise: 0) { handle, transfer in
            transfer.context.handleHead(handle.headBuffer, transfer: transfer, at: handle.clock.now) ? 1 : 0
        }
    }

    static let read: curlew_data_callback = { buffer, size, count, userdata in
        guard let userdata else { return curlew_CURL_READFUNC_ABORT }
        return EasyHandle.withTransfer(userdata, otherwise: curlew_CURL_READFUNC_ABORT) { handle, transfer in
            let bytes = UnsafeMutableRawBufferPointer(start: buffer, count: size * count)
            return transfer.context.handleRead(into: bytes, at: handle.clock.now)
        }
    }

    static let seek: curlew_seek_callback = { userdata, offset, origin in
        guard let userdata, origin == SEEK_SET else { return curlew_CURL_SEEKFUNC_CANTSEEK }
        return EasyHandle.withTransfer(userdata, otherwise: curlew_CURL_SEEKFUNC_CANTSEEK) { _, transfer in
            transfer.context.handleSeek(to: Int64(offset))
        }
    }

    static let progress: curlew_xferinfo_callback = { userdata, downloadTotal, downloadNow, uploadTotal, uploadNow in
        guard let userdata else { return 0 }
        EasyHandle.withTransfer(userdata, otherwise: ()) { _, transfer in
            transfer.context.handleProgress(
                downloadTotal: Int64(downloadTotal), downloadNow: Int64(downloadNow),
                uploadTotal: Int64(uploadTotal), uploadNow: Int64(uploadNow), transfer: transfer)
        }
        return 0
    }

    /// After the connection (and its TLS handshake) is ready, before the request is written:
    /// runs the trust policy's check. Installed only for policies that have one.
    static let prerequest: curlew_prereq_callback = { userdata, _, _, _, _ in
        guard let userdata else { return curlew_CURL_PREREQFUNC_ABORT }
        return EasyHandle.withTransfer(userdata, otherwise: curlew_CURL_PREREQFUNC_ABORT) { _, transfer in
            transfer.context.handlePrerequest()
        }
    }

    /// `CURLOPT_DEBUGFUNCTION`: a record of the wire trace. Installed only for traced hops.
    static let debug: curlew_debug_callback = { _, type, data, size, userdata in
        guard let userdata, let data else { return 0 }
        EasyHandle.withTransfer(userdata, otherwise: ()) { _, transfer in
            transfer.context.handleWireTrace(type, UnsafeRawBufferPointer(start: data, count: size), transfer: transfer)
        }
        return 0
    }
}
